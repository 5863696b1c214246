package viz

import "github.com/gdamore/tcell/v2"

// handle applies one terminal event to the view.
func (l *loop) handle(ev tcell.Event) {
	switch ev := ev.(type) {
	case *tcell.EventResize:
		l.sync, l.dirty = true, true
	case *tcell.EventKey:
		l.key(ev)
	case *tcell.EventMouse:
		l.mouse(ev)
	}
}

// layoutKey maps 1-5 and their letters to layouts.
func layoutKey(r rune) (Layout, bool) {
	switch r {
	case '1', 'o':
		return LayoutOverview, true
	case '2', 'r':
		return LayoutRead, true
	case '3', 'w':
		return LayoutWrite, true
	case '4', 'p':
		return LayoutPositions, true
	case '5', 'k':
		return LayoutPackets, true
	}
	return 0, false
}

// actionKey maps the stepping keys to actions.
func actionKey(r rune) (Action, bool) {
	switch r {
	case 's':
		return ActStep, true
	case 'n':
		return ActNext, true
	case 'f':
		return ActFinish, true
	case 'c':
		return ActContinue, true
	case 'C':
		return ActComplete, true
	}
	return 0, false
}

func (l *loop) key(ev *tcell.EventKey) {
	v := &l.m.View
	l.dirty = true
	if v.Selected == PanePackets && !v.Help && l.packetsKey(ev) {
		return
	}
	switch ev.Key() {
	case tcell.KeyCtrlC:
		l.rune('q')
	case tcell.KeyCtrlL:
		l.sync = true
	case tcell.KeyEscape:
		if v.Help {
			v.Help = false
		} else {
			v.Zoomed = false
		}
	case tcell.KeyTab:
		l.cycle(1)
	case tcell.KeyBacktab:
		l.cycle(-1)
	case tcell.KeyUp:
		l.scroll(v.Selected, -1)
	case tcell.KeyDown:
		l.scroll(v.Selected, 1)
	case tcell.KeyPgUp:
		l.scroll(v.Selected, -l.page())
	case tcell.KeyPgDn:
		l.scroll(v.Selected, l.page())
	case tcell.KeyHome:
		l.scroll(v.Selected, -1<<20)
	case tcell.KeyEnd:
		l.scroll(v.Selected, 1<<20)
	case tcell.KeyRune:
		l.rune(ev.Rune())
	default:
		l.dirty = false
	}
}

func (l *loop) rune(r rune) {
	v := &l.m.View
	if lay, ok := layoutKey(r); ok {
		v.Layout, v.Zoomed = lay, false
		if !l.inLayout(v.Selected) {
			v.Selected = layouts(lay)[0].cells[0].pane
		}
		return
	}
	if a, ok := actionKey(r); ok {
		l.act(a)
		return
	}
	if r == 'b' || r == 'B' {
		if _, ok := l.src.(Rewinder); !ok {
			l.m.Status, l.m.StatusErr = "only a replay goes back", true
			return
		}
		l.act(map[rune]Action{'b': ActBack, 'B': ActBackRPC}[r])
		return
	}
	switch r {
	case 'q':
		l.quitting = true
		if l.busy {
			l.m.Status, l.m.StatusErr = "quitting once this action ends", false
		}
	case '?':
		v.Help = !v.Help
	case 'z':
		v.Zoomed = !v.Zoomed
	default:
		l.dirty = false
	}
}

// inLayout reports whether the current layout has pane p.
func (l *loop) inLayout(p PaneID) bool {
	for _, r := range layouts(l.m.View.Layout) {
		for _, c := range r.cells {
			if c.pane == p {
				return true
			}
		}
	}
	return false
}

// cycle selects the next (or previous) pane on screen.
func (l *loop) cycle(dir int) {
	if len(l.placed) == 0 {
		return
	}
	at := 0
	for i, p := range l.placed {
		if p.Pane == l.m.View.Selected {
			at = i
		}
	}
	n := len(l.placed)
	l.m.View.Selected = l.placed[((at+dir)%n+n)%n].Pane
}

// page is the height of the selected pane's body, for PgUp and PgDn.
func (l *loop) page() int {
	for _, p := range l.placed {
		if p.Pane == l.m.View.Selected {
			return max(1, p.Rect.H-2)
		}
	}
	return 10
}

// scroll moves pane p by delta lines, down positive. The Events pane
// counts back from the newest event, so down brings newer ones; in the
// Packets pane it moves the selected packet.
func (l *loop) scroll(p PaneID, delta int) {
	v := &l.m.View
	limit := 1 << 16
	switch p {
	case PaneEvents:
		delta, limit = -delta, l.m.EventCount()
	case PanePackets:
		limit = 0
		if l.m.Packets != nil {
			limit = max(0, l.m.Packets.Len()-1)
		}
	}
	v.Scroll[p] = min(max(v.Scroll[p]+delta, 0), limit)
}

// mouse selects the pane a click lands in and scrolls the one under the
// wheel; only a new press counts, not a held button.
func (l *loop) mouse(ev *tcell.EventMouse) {
	x, y := ev.Position()
	btn := ev.Buttons()
	pressed := btn &^ l.lastBtn
	l.lastBtn = btn
	for _, p := range l.placed {
		if !p.Rect.Contains(x, y) {
			continue
		}
		switch {
		case pressed&tcell.Button1 != 0:
			l.m.View.Selected, l.m.View.Help, l.dirty = p.Pane, false, true
		case btn&tcell.WheelUp != 0:
			l.scroll(p.Pane, -3)
			l.dirty = true
		case btn&tcell.WheelDown != 0:
			l.scroll(p.Pane, 3)
			l.dirty = true
		}
		return
	}
}
