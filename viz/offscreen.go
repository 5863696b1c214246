package viz

import (
	"github.com/gdamore/tcell/v2"

	"github.com/rdmalab/rdmalab/proto/safe"
)

// offscreen collects a frame before it reaches the screen. tcell marks a
// cell dirty whenever its text is rewritten with something else, so
// clearing and redrawing the screen would make the terminal repaint every
// cell each frame; through offscreen only the cells that changed are
// touched, which is what keeps a projector or an ssh link quiet.
type offscreen struct {
	tcell.Screen // the real screen, for everything but drawing
	buf          tcell.CellBuffer
}

// reset sizes the buffer to s and blanks it in st.
func (o *offscreen) reset(s tcell.Screen, st tcell.Style) {
	o.Screen = s
	o.buf.Resize(s.Size())
	o.buf.Fill(' ', st)
}

func (o *offscreen) Size() (int, int) { return o.buf.Size() }

// Put is the one place text goes into cells, and it lets no rune a
// terminal would act on into one: the strings drawn come from captures,
// snapshot files and a socket, and tcell writes a cell's text to the
// terminal as it is (an ESC in a file name would clear the screen). The
// grapheme it took is checked, and if it holds a control, the text is put
// again escaped by safe.Display (backslashes kept: the decoder's strings
// come escaped already), so the caller goes on with the escaped rest.
// Safe text costs a check of the few bytes of one cell.
func (o *offscreen) Put(x, y int, str string, st tcell.Style) (string, int) {
	rest, w := o.buf.Put(x, y, str, st)
	if !safe.IsDisplayable(str[:len(str)-len(rest)]) {
		return o.buf.Put(x, y, safe.Display(str), st)
	}
	return rest, w
}

func (o *offscreen) PutStrStyled(x, y int, str string, st tcell.Style) {
	w, h := o.buf.Size()
	for str != "" && x < w && y < h {
		var n int
		str, n = o.Put(x, y, str, st)
		if n == 0 {
			break
		}
		x += n
	}
}

func (o *offscreen) PutStr(x, y int, str string) { o.PutStrStyled(x, y, str, tcell.StyleDefault) }

func (o *offscreen) Get(x, y int) (string, tcell.Style, int) { return o.buf.Get(x, y) }

func (o *offscreen) Fill(r rune, st tcell.Style) {
	if !safe.IsDisplayable(string(r)) {
		r = '?'
	}
	o.buf.Fill(r, st)
}

func (o *offscreen) Clear() { o.buf.Fill(' ', tcell.StyleDefault) }

// SetContent is tcell's deprecated setter, kept so nothing bypasses the
// buffer.
func (o *offscreen) SetContent(x, y int, r rune, comb []rune, st tcell.Style) {
	o.Put(x, y, string(append([]rune{r}, comb...)), st)
}

// SetCell is the other deprecated setter.
func (o *offscreen) SetCell(x, y int, st tcell.Style, ch ...rune) {
	if len(ch) > 0 {
		o.Put(x, y, string(ch), st)
	}
}

// GetContent reads the buffer, as Get does.
func (o *offscreen) GetContent(x, y int) (rune, []rune, tcell.Style, int) {
	str, st, w := o.buf.Get(x, y)
	rs := []rune(str)
	if len(rs) == 0 {
		return ' ', nil, st, w
	}
	return rs[0], rs[1:], st, w
}

// SetTitle reaches the terminal as it is: it is escaped like a cell.
func (o *offscreen) SetTitle(title string) { o.Screen.SetTitle(safe.Display(title)) }

// flush copies the cells that differ from what the screen holds.
func (o *offscreen) flush() {
	w, h := o.buf.Size()
	for y := 0; y < h; y++ {
		for x := 0; x < w; {
			str, st, n := o.buf.Get(x, y)
			if cur, cst, _ := o.Screen.Get(x, y); cur != str || cst != st {
				o.Screen.Put(x, y, str, st)
			}
			x += max(n, 1)
		}
	}
}
