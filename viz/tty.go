package viz

import (
	"fmt"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"
)

// NewScreen opens the terminal for a view. Every view (the REPL's, an
// attached one, a snapshot, a capture, a replay) gets its screen here, so
// every one reads its keys through keyTty.
func NewScreen() (tcell.Screen, error) {
	tty, err := tcell.NewDevTty()
	if err != nil {
		return nil, err
	}
	s, err := tcell.NewTerminfoScreenFromTty(newKeyTty(tty))
	if err != nil {
		_ = tty.Close()
		return nil, err
	}
	return s, nil
}

// tcell v2.13's input parser enters a string state on ESC ] (OSC), ESC X
// (SOS), ESC ^ (PM) and ESC _ (APC), and eats every byte until ST (ESC \)
// or BEL. A person who presses Esc and then ] or X quickly, or Alt-X in
// tmux, sends exactly those bytes: the view then ignored every key, q and
// Ctrl-C included, until Esc \. keyTty stands between the terminal and
// tcell and tells the two apart by time: a terminal's reply arrives whole,
// a keypress is the last thing read and nothing follows it.
//
// An escape sequence that is incomplete at the end of what was read is
// held back for holdFor. If it completes meanwhile (the rest of a reply,
// an arrow key split across reads) it goes on unchanged; if not, it was
// typed, and its ESC is given to tcell as CSI-u "ESC [27u" (the Escape
// key, which tcell parses in handleCsi) followed by the characters as
// typed. ESC P (DCS) is treated alike, though v2.13 reads it as Alt-P,
// so that a newer parser cannot reintroduce the trap. As a backstop, a
// string too long to hold that stays unterminated and quiet for quietFor
// gets an ST, so the parser always comes back.

// Timing and bounds of keyTty.
const (
	holdFor  = 50 * time.Millisecond // tcell's own wait for a lone ESC
	quietFor = time.Second
	maxHold  = 4096 // bytes of an incomplete sequence held back
)

// csiEsc is the Escape key in CSI-u form.
const csiEsc = "\x1b[27u"

// keyTty wraps the terminal tcell reads keys from (see above).
type keyTty struct {
	tcell.Tty
	hold, quiet time.Duration

	// Set by Start before tcell's input goroutine runs, read by it.
	in   chan ttyRead
	stop chan struct{}
	f    keyFilter
	at   time.Time // when the sequence held now began to arrive
	err  error
	done sync.WaitGroup
}

// ttyRead is one read of the terminal.
type ttyRead struct {
	p   []byte
	err error
}

func newKeyTty(tty tcell.Tty) *keyTty {
	return &keyTty{Tty: tty, hold: holdFor, quiet: quietFor}
}

// Start starts the terminal and the goroutine that reads it, so that Read
// can wait for input and a timer at once.
func (t *keyTty) Start() error {
	if err := t.Tty.Start(); err != nil {
		return err
	}
	t.in, t.stop = make(chan ttyRead), make(chan struct{})
	t.f, t.err = keyFilter{}, nil
	t.done.Add(1)
	go t.pump(t.in, t.stop)
	return nil
}

// pump reads the terminal until it fails: tcell's Drain makes it fail
// (a read deadline) before Stop. A panic becomes tcell's read error, so
// the view ends and gives the terminal back.
func (t *keyTty) pump(in chan<- ttyRead, stop <-chan struct{}) {
	defer t.done.Done()
	defer func() {
		if r := recover(); r != nil {
			select {
			case in <- ttyRead{err: fmt.Errorf("viz: reading the terminal panicked: %v", r)}:
			case <-stop:
			}
		}
	}()
	for {
		buf := make([]byte, 4096)
		n, err := t.Tty.Read(buf)
		select {
		case in <- ttyRead{buf[:n], err}:
		case <-stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// Stop stops the terminal and ends the reading goroutine.
func (t *keyTty) Stop() error {
	err := t.Tty.Stop()
	if t.stop != nil {
		close(t.stop)
		t.stop = nil
	}
	t.done.Wait()
	return err
}

// Read gives tcell the terminal's bytes, rewritten by the filter.
func (t *keyTty) Read(b []byte) (int, error) {
	for {
		if n := t.f.take(b); n > 0 {
			return n, nil
		}
		if t.err != nil {
			return 0, t.err
		}
		var timer *time.Timer
		var expired <-chan time.Time
		switch {
		case t.f.holding():
			timer = time.NewTimer(time.Until(t.at.Add(t.hold)))
			expired = timer.C
		case t.f.inStr:
			timer = time.NewTimer(t.quiet)
			expired = timer.C
		}
		select {
		case r := <-t.in:
			if r.err != nil {
				t.err = r.err
			}
			if t.f.feed(r.p) {
				t.at = time.Now()
			}
		case <-expired:
			if t.f.holding() {
				t.f.expire()
			} else {
				t.f.unstick()
			}
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// keyFilter is keyTty's rewriting, without the clock: feed gives it what
// was read, expire says the hold time passed, unstick that a string let
// through has been quiet too long.
type keyFilter struct {
	held   []byte // an incomplete escape sequence at the end of the input
	out    []byte // ready for tcell
	inStr  bool   // tcell is inside a string let through unterminated
	strEsc bool   // and the last byte of it was ESC
}

func (f *keyFilter) holding() bool { return len(f.held) > 0 }

// take moves output to b.
func (f *keyFilter) take(b []byte) int {
	n := copy(b, f.out)
	f.out = f.out[n:]
	if len(f.out) == 0 {
		f.out = nil
	}
	return n
}

// feed takes new input; it reports whether a new sequence is now held
// (the hold time starts).
func (f *keyFilter) feed(p []byte) bool {
	was := f.holding()
	in := append(f.held, p...)
	f.held = nil
	start := f.scan(in, false)
	return f.holding() && (!was || start > 0)
}

// expire releases what is held as typed keys.
func (f *keyFilter) expire() {
	in := f.held
	f.held = nil
	f.scan(in, true)
}

// unstick ends a string tcell has been in, quiet, for too long.
func (f *keyFilter) unstick() {
	if !f.inStr {
		return
	}
	if f.strEsc {
		f.out = append(f.out, '\\') // tcell has the ESC of the ST already
	} else {
		f.out = append(f.out, "\x1b\\"...)
	}
	f.inStr, f.strEsc = false, false
}

// scan passes b on, holding back an incomplete sequence at its end (or,
// when final, rewriting it as typed). It returns where the held sequence
// starts in b.
func (f *keyFilter) scan(b []byte, final bool) int {
	done, i := 0, 0
	for i < len(b) {
		if f.inStr {
			i = f.passString(b, i)
			continue
		}
		if b[i] != 0x1b {
			i++
			continue
		}
		n, complete, str := escLen(b[i:])
		switch {
		case complete:
			i += n
		case final:
			// Typed: the Escape key, then what followed it as keys.
			f.out = append(f.out, b[done:i]...)
			f.out = append(f.out, csiEsc...)
			i++
			done = i
		case len(b)-i > maxHold:
			// Too long to be a keypress: tcell gets it as it is, and
			// unstick ends it if it never ends.
			if !str {
				i = len(b)
				break
			}
			f.inStr, f.strEsc = true, false
			i = f.passString(b, i+1) // to follow where tcell is in it
		default:
			f.out = append(f.out, b[done:i]...)
			f.held = append([]byte(nil), b[i:]...)
			return i
		}
	}
	f.out = append(f.out, b[done:]...)
	return 0
}

// passString follows a string tcell is in from b[i] and returns where it
// ends (just past its terminator), or len(b).
func (f *keyFilter) passString(b []byte, i int) int {
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= 0x80: // tcell leaves the string for any non-ASCII rune
			f.inStr, f.strEsc = false, false
			return i
		case f.strEsc:
			f.strEsc = false
			if c == '\\' || c == 0x07 {
				f.inStr = false
				return i + 1
			}
		case c == 0x1b:
			f.strEsc = true
		case c == 0x07:
			f.inStr = false
			return i + 1
		}
	}
	return i
}

// escLen measures the escape sequence at the start of s (s[0] is ESC) as
// tcell's parser reads it: its length if complete, and whether it is a
// string (OSC, SOS, PM, APC, DCS).
func escLen(s []byte) (n int, complete, str bool) {
	if len(s) < 2 {
		return len(s), false, false
	}
	switch c := s[1]; c {
	case 0x1b: // an Alt prefix to what follows
		n, complete, str = escLen(s[1:])
		return n + 1, complete, str
	case '[':
		for j := 2; j < len(s); j++ {
			switch b := s[j]; {
			case b >= 0x20 && b <= 0x3f: // parameters, intermediates
			case b >= 0x40 && b <= 0x7e:
				return j + 1, true, false
			default: // tcell ends the CSI there
				return j, true, false
			}
		}
		return len(s), false, false
	case 'N', 'O': // SS2, SS3: one more byte
		if len(s) < 3 {
			return len(s), false, false
		}
		if c == 'O' && s[2] == 0x1b {
			return 2, true, false
		}
		return 3, true, false
	case ']', 'X', '^', '_', 'P':
		for j := 2; j < len(s); j++ {
			switch b := s[j]; {
			case b >= 0x80:
				return j, true, true
			case b == 0x07:
				return j + 1, true, true
			case b == 0x1b:
				if j+1 == len(s) {
					return len(s), false, true
				}
				if s[j+1] == '\\' || s[j+1] == 0x07 {
					return j + 2, true, true
				}
				j++ // tcell keeps the byte after ESC in the string
			}
		}
		return len(s), false, true
	}
	return 2, true, false
}
