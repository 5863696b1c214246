package viz

import (
	"slices"

	"github.com/gdamore/tcell/v2"
)

// glyphs is the second half of the help: what the pictures' marks mean.
func glyphs() []string {
	return []string{
		"bytes: i inline  0-9 read chunk  c call chunk  w write  r reply  · empty",
		"       ░ = bytes a posted Read will bring (the letter shows once landed)",
		"▲ rc_curpage/rc_pageoff   ↪ sg_chain to the next SG table",
		"◆ signaled WR (carries the cqe)   ◀ the Send ending a reply chain",
		"A xpt_acked_pos  P sc_post_seq  ● delivered  ○ pending  ! acked too soon",
		"↩ a Send completion behind the acked position",
	}
}

// helpTitle names the view whose keys the help lists.
func helpTitle(m *Model) string {
	switch {
	case m.Can.Step:
		return "rdmalab view — keys · live lab"
	case m.Can.Replay:
		return "rdmalab view — keys · replay"
	}
	return "rdmalab view — keys · read-only view"
}

// helpSection is a run of key rows under an optional heading.
type helpSection struct {
	heading string
	rows    []binding
}

// helpSections are the key table's rows m's view has, a section a group.
func helpSections(m *Model) []helpSection {
	secs := [...]helpSection{groupStep: {}, groupView: {}, groupPackets: {heading: "with the Packets pane selected:"}}
	for _, b := range viewBindings(m) {
		secs[b.group].rows = append(secs[b.group].rows, b)
	}
	var out []helpSection
	for _, s := range secs {
		if len(s.rows) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// helpText is the help box's text for m's view, at most w columns wide
// and, when it can be, h rows high: the title, the keys section by
// section, then the glyphs. Keys that do not fit one column go in two,
// and then the blank lines between the sections go.
func helpText(m *Model, th Theme, w, h int) []line {
	title := th.Help.Bold(true)
	var text []line
	for form := 1; form <= 3; form++ {
		cols, blank := min(form, 2), form < 3
		text = []line{line{}.add(helpTitle(m), title)}
		for i, s := range helpSections(m) {
			if i > 0 && blank {
				text = append(text, nil)
			}
			if s.heading != "" {
				text = append(text, line{}.add(s.heading, title))
			}
			for _, l := range keyColumns(s.rows, cols, w) {
				text = append(text, line{}.add(l, th.Help))
			}
		}
		if blank {
			text = append(text, nil)
		}
		for _, g := range glyphs() {
			text = append(text, line{}.add(g, th.Help))
		}
		if len(text) <= h {
			break
		}
	}
	return text
}

// keyColumns lays rows out in cols columns (1 or 2) in w: a row a line,
// the words aligned after the labels. In two columns a row too wide for
// one comes first, on a line of its own, and the rest fill the left
// column, then the right.
func keyColumns(rows []binding, cols, w int) []string {
	if cols == 1 {
		return keyLines(rows, 0)
	}
	const gap = 2
	colW := (w - gap) / 2
	width := func(b binding, lw int) int { return lw + 2 + len([]rune(b.words)) }
	// The narrow rows are those that fit a column with their words after
	// the widest narrow label: from the rows that fit with their own
	// label, drop those the widest label pushes out, until none is.
	var narrow []binding
	for _, b := range rows {
		if width(b, len([]rune(b.label))) <= colW {
			narrow = append(narrow, b)
		}
	}
	lw := 0
	for {
		lw = 0
		for _, b := range narrow {
			lw = max(lw, len([]rune(b.label)))
		}
		var keep []binding
		for _, b := range narrow {
			if width(b, lw) <= colW {
				keep = append(keep, b)
			}
		}
		if len(keep) == len(narrow) {
			break
		}
		narrow = keep
	}
	var wide []binding
	for _, b := range rows {
		if !slices.ContainsFunc(narrow, func(n binding) bool { return n.label == b.label && n.words == b.words }) {
			wide = append(wide, b)
		}
	}
	out := keyLines(wide, 0)
	half := (len(narrow) + 1) / 2
	left, right := keyLines(narrow[:half], lw), keyLines(narrow[half:], lw)
	for i, l := range left {
		if i < len(right) {
			l = pad(l, colW+gap) + right[i]
		}
		out = append(out, l)
	}
	return out
}

// keyLines is a line a row, the words aligned after the widest label
// (and at least lw).
func keyLines(rows []binding, lw int) []string {
	for _, b := range rows {
		lw = max(lw, len([]rune(b.label)))
	}
	out := make([]string, len(rows))
	for i, b := range rows {
		out[i] = pad(b.label, lw) + "  " + b.words
	}
	return out
}

// drawHelp centres the help box in r. A box taller than r loses its
// blank top and bottom rows first, then its last lines (↓ says so).
func drawHelp(s tcell.Screen, r Rect, m *Model, th Theme) {
	text := helpText(m, th, r.W-4, r.H)
	w := 0
	for _, l := range text {
		w = max(w, l.width())
	}
	margin := 1
	if len(text)+2 > r.H {
		margin = 0
	}
	box := Rect{W: min(w+4, r.W), H: min(len(text)+2*margin, r.H)}
	box.X = r.X + (r.W-box.W)/2
	box.Y = r.Y + (r.H-box.H)/2
	fill(s, box, th.Help)
	drawLines(s, Rect{box.X + 2, box.Y + margin, box.W - 3, box.H - 2*margin}, text, 0, th.Help)
}
