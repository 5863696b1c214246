package viz

import "github.com/gdamore/tcell/v2"

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

func (o *offscreen) Put(x, y int, str string, st tcell.Style) (string, int) {
	return o.buf.Put(x, y, str, st)
}

func (o *offscreen) PutStrStyled(x, y int, str string, st tcell.Style) {
	w, h := o.buf.Size()
	for str != "" && x < w && y < h {
		var n int
		str, n = o.buf.Put(x, y, str, st)
		if n == 0 {
			break
		}
		x += n
	}
}

func (o *offscreen) PutStr(x, y int, str string) { o.PutStrStyled(x, y, str, tcell.StyleDefault) }

func (o *offscreen) Get(x, y int) (string, tcell.Style, int) { return o.buf.Get(x, y) }

func (o *offscreen) Fill(r rune, st tcell.Style) { o.buf.Fill(r, st) }

func (o *offscreen) Clear() { o.buf.Fill(' ', tcell.StyleDefault) }

// SetContent is tcell's deprecated setter, kept so nothing bypasses the
// buffer.
func (o *offscreen) SetContent(x, y int, r rune, comb []rune, st tcell.Style) {
	o.buf.Put(x, y, string(append([]rune{r}, comb...)), st)
}

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
