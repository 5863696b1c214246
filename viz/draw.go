package viz

import (
	"slices"
	"strings"

	"github.com/gdamore/tcell/v2"
)

// Rect is an area of the screen in cells.
type Rect struct{ X, Y, W, H int }

// Empty reports whether r has no cell.
func (r Rect) Empty() bool { return r.W <= 0 || r.H <= 0 }

// Contains reports whether the cell (x, y) is inside r.
func (r Rect) Contains(x, y int) bool {
	return x >= r.X && y >= r.Y && x < r.X+r.W && y < r.Y+r.H
}

// Right is the first column past r.
func (r Rect) Right() int { return r.X + r.W }

// Bottom is the first row past r.
func (r Rect) Bottom() int { return r.Y + r.H }

// put draws str from (x, y) and stops before column maxX; it returns the
// column after the last cell drawn. A wide grapheme that would cross maxX
// is replaced by a space, so nothing ever spills out of a pane.
func put(s tcell.Screen, x, y, maxX int, str string, st tcell.Style) int {
	for str != "" && x < maxX {
		rest, w := s.Put(x, y, str, st)
		if w <= 0 {
			break
		}
		if x+w > maxX {
			s.Put(x, y, " ", st)
			return maxX
		}
		x += w
		str = rest
	}
	return x
}

// fill paints r with spaces in st.
func fill(s tcell.Screen, r Rect, st tcell.Style) {
	for y := r.Y; y < r.Bottom(); y++ {
		for x := r.X; x < r.Right(); x++ {
			s.Put(x, y, " ", st)
		}
	}
}

// span is a run of text in one style.
type span struct {
	text string
	st   tcell.Style
}

// line is one row of a pane's content.
type line []span

// add appends a span and returns the line.
func (l line) add(text string, st tcell.Style) line { return append(l, span{text, st}) }

// width is the number of runes of l (panes use single-width glyphs only).
func (l line) width() int {
	n := 0
	for _, sp := range l {
		n += len([]rune(sp.text))
	}
	return n
}

// draw puts l at (x, y), clipped before maxX.
func (l line) draw(s tcell.Screen, x, y, maxX int) int {
	for _, sp := range l {
		if x >= maxX {
			break
		}
		x = put(s, x, y, maxX, sp.text, sp.st)
	}
	return x
}

// packBreaks lays items of the widths given after a head of width indent,
// a space between them, starting a new line (indented like the first)
// when the next item would pass w; it returns the item each line starts
// with, in time linear in the items.
func packBreaks(indent int, widths []int, w int) []int {
	starts := []int{0}
	cur := indent
	for i, iw := range widths {
		if cur+1+iw > w && cur > indent {
			starts = append(starts, i)
			cur = indent
		}
		cur += 1 + iw
	}
	return starts
}

// drawLines draws lines from the scroll'th on, one per row of r, with ↑
// and ↓ in the last column when more is hidden; it returns the scroll it
// used, clamped so the last line stays in view.
func drawLines(s tcell.Screen, r Rect, lines []line, scroll int, more tcell.Style) int {
	if r.Empty() {
		return 0
	}
	scroll = clampScroll(scroll, len(lines), r.H)
	for i := 0; i < r.H && scroll+i < len(lines); i++ {
		lines[scroll+i].draw(s, r.X, r.Y+i, r.Right())
	}
	if scroll > 0 {
		put(s, r.Right()-1, r.Y, r.Right(), "↑", more)
	}
	if scroll+r.H < len(lines) {
		put(s, r.Right()-1, r.Bottom()-1, r.Right(), "↓", more)
	}
	return scroll
}

// clampScroll keeps a scroll offset inside [0, n-h].
func clampScroll(scroll, n, h int) int {
	return max(0, min(scroll, n-h))
}

// pad cuts or pads s to exactly n runes.
func pad(s string, n int) string {
	r := []rune(s)
	if len(r) >= n {
		return string(r[:max(n, 0)])
	}
	return s + strings.Repeat(" ", n-len(r))
}

// fit cuts s to at most n runes, ending it with "…" when cut.
func fit(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return string(r[:max(n, 0)])
	}
	return string(r[:n-1]) + "…"
}

// lazyLines is a pane's content as parts that draw their lines on demand:
// a pane whose lists run to thousands of lines draws a frame in the time
// its visible lines take, not the time all of them would.
type lazyLines struct {
	starts []int // first line of each part
	parts  []func(i int) line
	n      int
}

// add appends a part of n lines; at(i) draws its i'th.
func (z *lazyLines) add(n int, at func(i int) line) {
	if n <= 0 {
		return
	}
	z.starts = append(z.starts, z.n)
	z.parts = append(z.parts, at)
	z.n += n
}

// addLines appends lines already drawn.
func (z *lazyLines) addLines(ls ...line) { z.add(len(ls), func(i int) line { return ls[i] }) }

// addAll appends the parts of o.
func (z *lazyLines) addAll(o *lazyLines) {
	for i, at := range o.parts {
		end := o.n
		if i+1 < len(o.starts) {
			end = o.starts[i+1]
		}
		z.add(end-o.starts[i], at)
	}
}

func (z *lazyLines) len() int { return z.n }

// line is line i.
func (z *lazyLines) line(i int) line {
	p, found := slices.BinarySearch(z.starts, i)
	if !found {
		p--
	}
	return z.parts[p](i - z.starts[p])
}

// drawLazy is drawLines for lazyLines: only the lines in view are drawn.
func drawLazy(s tcell.Screen, r Rect, z *lazyLines, scroll int, more tcell.Style) int {
	if r.Empty() {
		return 0
	}
	scroll = clampScroll(scroll, z.len(), r.H)
	for i := 0; i < r.H && scroll+i < z.len(); i++ {
		z.line(scroll+i).draw(s, r.X, r.Y+i, r.Right())
	}
	if scroll > 0 {
		put(s, r.Right()-1, r.Y, r.Right(), "↑", more)
	}
	if scroll+r.H < z.len() {
		put(s, r.Right()-1, r.Bottom()-1, r.Right(), "↓", more)
	}
	return scroll
}

// memoLines is a part's lines drawn once, the first time one is asked for.
func memoLines(draw func() []line) func(i int) line {
	var ls []line
	return func(i int) line {
		if ls == nil {
			ls = draw()
		}
		return ls[i]
	}
}
