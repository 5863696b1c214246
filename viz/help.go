package viz

import "github.com/gdamore/tcell/v2"

// helpText is the overlay ? shows: keys, then what the glyphs mean.
func helpText() []string {
	return []string{
		"rdmalab view — keys",
		"",
		"s step      run to the next event",
		"n next      step over a function",
		"f finish    run until this function returns",
		"c continue  run until nothing can run",
		"C complete  deliver the next completion",
		"",
		"1-5 or o r w p k   overview, read path, write path, positions, packets",
		"Tab / Shift-Tab    select a pane (or click it)",
		"z                  zoom the selected pane",
		"↑ ↓ PgUp PgDn Home End   scroll it (wheel too)",
		"Ctrl-L redraw   ? help   q quit (back to the prompt)",
		"packets: → ← tree or list  x X call, reply  [ ] chunk  { } RPC  ⌫ back",
		"",
		"bytes: i inline  0-9 read chunk  c call chunk  w write  r reply  · empty",
		"       filled = landed, outlined = a posted Read will bring them",
		"▲ rc_curpage/rc_pageoff   ↪ sg_chain to the next SG table",
		"◆ signaled WR (carries the cqe)   ◀ the Send ending a reply chain",
		"A xpt_acked_pos  P sc_post_seq  ● delivered  ○ pending  ! acked too soon",
		"↩ a Send completion behind the acked position",
	}
}

// drawHelp centres the help box in r, clipped to it.
func drawHelp(s tcell.Screen, r Rect, th Theme) {
	text := helpText()
	w := 0
	for _, l := range text {
		w = max(w, len([]rune(l)))
	}
	box := Rect{W: min(w+4, r.W), H: min(len(text)+2, r.H)}
	box.X = r.X + (r.W-box.W)/2
	box.Y = r.Y + (r.H-box.H)/2
	fill(s, box, th.Help)
	for i, l := range text {
		y := box.Y + 1 + i
		if y >= box.Bottom()-1 {
			break
		}
		put(s, box.X+2, y, box.Right()-1, l, th.Help)
	}
}
