package viz

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"
)

// keysOf runs bytes through tcell's own input parser and returns the keys
// it posts, spelled "Esc", "q", "Alt+x", "Up"…
func keysOf(t *testing.T, chunks ...string) []string {
	t.Helper()
	evs := make(chan tcell.Event, 1000)
	ip := tcell.NewInputProcessor(evs)
	for _, c := range chunks {
		ip.ScanUTF8([]byte(c))
	}
	var keys []string
	for {
		select {
		case ev := <-evs:
			if k, ok := ev.(*tcell.EventKey); ok {
				keys = append(keys, k.Name())
			}
		default:
			return keys
		}
	}
}

// filtered is what tcell gets from keyTty for chunks read one after the
// other, the hold time passing after the last.
func filtered(chunks ...string) string {
	var f keyFilter
	var out []byte
	buf := make([]byte, 7) // small reads, as tcell's are bounded
	drain := func() {
		for n := f.take(buf); n > 0; n = f.take(buf) {
			out = append(out, buf[:n]...)
		}
	}
	for _, c := range chunks {
		f.feed([]byte(c))
		drain()
	}
	if f.holding() {
		f.expire()
	}
	drain()
	return string(out)
}

func TestKeyFilter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []string
		want   string
		keys   string // what tcell makes of it, then of a q typed after
	}{
		{"plain keys", []string{"jkq"}, "jkq", "Rune[j] Rune[k] Rune[q] Rune[q]"},
		{"Esc X (tmux M-X)", []string{"\x1bX"}, "\x1b[27uX", "Esc Rune[X] Rune[q]"},
		{"Esc ]", []string{"\x1b]"}, "\x1b[27u]", "Esc Rune[]] Rune[q]"},
		{"Esc ^", []string{"\x1b^"}, "\x1b[27u^", "Esc Rune[^] Rune[q]"},
		{"Esc _", []string{"\x1b_"}, "\x1b[27u_", "Esc Rune[_] Rune[q]"},
		{"Esc P", []string{"\x1bP"}, "\x1b[27uP", "Esc Rune[P] Rune[q]"},
		{"Esc, X in two reads", []string{"\x1b", "X"}, "\x1b[27uX", "Esc Rune[X] Rune[q]"},
		{"Esc X j k in one read", []string{"\x1bXjk"}, "\x1b[27uXjk", "Esc Rune[X] Rune[j] Rune[k] Rune[q]"},
		{"text then Esc ]", []string{"ab\x1b]"}, "ab\x1b[27u]", "Rune[a] Rune[b] Esc Rune[]] Rune[q]"},
		{"Esc Esc X", []string{"\x1b\x1bX"}, "\x1b[27u\x1b[27uX", "Esc Esc Rune[X] Rune[q]"},
		{"lone Esc", []string{"\x1b"}, "\x1b[27u", "Esc Rune[q]"},
		{"Alt-[ (an open CSI)", []string{"\x1b["}, "\x1b[27u[", "Esc Rune[[] Rune[q]"},
		{"Esc O typed", []string{"\x1bO"}, "\x1b[27uO", "Esc Rune[O] Rune[q]"},
		{"Alt-x", []string{"\x1bx"}, "\x1bx", "Alt+Rune[x] Rune[q]"},
		{"arrow", []string{"\x1b[A"}, "\x1b[A", "Up Rune[q]"},
		{"arrow split", []string{"\x1b[", "A"}, "\x1b[A", "Up Rune[q]"},
		{"SS3 arrow", []string{"\x1bOA"}, "\x1bOA", "Up Rune[q]"},
		{"mouse", []string{"\x1b[<0;10;5M"}, "\x1b[<0;10;5M", "Rune[q]"},
		{"OSC reply whole", []string{"\x1b]11;rgb:0000/0000/0000\x1b\\q"}, "\x1b]11;rgb:0000/0000/0000\x1b\\q", "Rune[q] Rune[q]"},
		{"OSC reply split", []string{"\x1b]11;rgb:00", "00/0000\x07"}, "\x1b]11;rgb:0000/0000\x07", "Rune[q]"},
		{"ST split after its ESC", []string{"\x1b_Gi=1;OK\x1b", "\\"}, "\x1b_Gi=1;OK\x1b\\", "Rune[q]"},
		// ESC ESC \ does not end the string (tcell keeps the byte after an
		// ESC in it), so it was typed; as keys, tcell swallows the orphan ST
		// and marks the next key Alt.
		{"ESC ESC \\ does not end a string", []string{"\x1bXa\x1b\x1b\\"}, "\x1b[27uXa\x1b\x1b\\", "Esc Rune[X] Rune[a] Alt+Rune[q]"},
		{"a rune ends a string for tcell", []string{"\x1bXé"}, "\x1bXé", "Rune[é] Rune[q]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := filtered(tc.chunks...)
			if got != tc.want {
				t.Errorf("tcell gets %q, want %q", got, tc.want)
			}
			if keys := strings.Join(keysOf(t, got, filtered("q")), " "); keys != tc.keys {
				t.Errorf("keys %s, want %s", keys, tc.keys)
			}
		})
	}
	// Without the filter, q after Esc X is lost: the reason keyTty exists.
	if keys := keysOf(t, "\x1bX", "q", "q"); len(keys) != 0 {
		t.Logf("tcell no longer eats keys after ESC X (%v): keyTty may be retired", keys)
	}
}

// A string too long to hold goes through; if it never ends, unstick
// gives tcell the ST it waits for, and keys work again.
func TestKeyFilterUnstick(t *testing.T) {
	for _, tail := range []string{"", "\x1b"} {
		var f keyFilter
		long := "\x1b]" + strings.Repeat("a", maxHold+10) + tail
		f.feed([]byte(long))
		if f.holding() || !f.inStr {
			t.Fatalf("tail %q: holding %v, in a string %v", tail, f.holding(), f.inStr)
		}
		f.feed([]byte("more"))
		f.unstick()
		f.feed([]byte("q"))
		out := make([]byte, 2*maxHold)
		n := f.take(out)
		if keys := keysOf(t, string(out[:n])); strings.Join(keys, " ") != "Rune[q]" {
			t.Errorf("tail %q: keys %v", tail, keys)
		}
	}
	var f keyFilter
	f.feed([]byte("\x1b]" + strings.Repeat("a", maxHold+10) + "\x07j"))
	if f.inStr || f.holding() {
		t.Error("a long string that ends is over")
	}
}

// fakeTty is a terminal for tcell: the test writes what the user types,
// Drain makes a blocked Read fail as a read deadline does.
type fakeTty struct {
	keys chan []byte
	mu   sync.Mutex
	drn  chan struct{}
	rest []byte
}

func newFakeTty() *fakeTty { return &fakeTty{keys: make(chan []byte, 100)} }

func (f *fakeTty) Start() error {
	f.mu.Lock()
	f.drn = make(chan struct{})
	f.mu.Unlock()
	return nil
}

func (f *fakeTty) Drain() error {
	f.mu.Lock()
	close(f.drn)
	f.mu.Unlock()
	return nil
}

func (f *fakeTty) Read(b []byte) (int, error) {
	f.mu.Lock()
	drn := f.drn
	if len(f.rest) > 0 {
		n := copy(b, f.rest)
		f.rest = f.rest[n:]
		f.mu.Unlock()
		return n, nil
	}
	f.mu.Unlock()
	select {
	case p := <-f.keys:
		n := copy(b, p)
		f.mu.Lock()
		f.rest = p[n:]
		f.mu.Unlock()
		return n, nil
	case <-drn:
		return 0, os.ErrDeadlineExceeded
	}
}

func (f *fakeTty) Stop() error                 { return nil }
func (f *fakeTty) Close() error                { return nil }
func (f *fakeTty) Write(b []byte) (int, error) { return len(b), nil }
func (f *fakeTty) NotifyResize(func())         {}
func (f *fakeTty) WindowSize() (tcell.WindowSize, error) {
	return tcell.WindowSize{Width: 80, Height: 24}, nil
}

// readWithin reads one chunk from tty and how long it took.
func readWithin(t *testing.T, tty tcell.Tty, limit time.Duration) (string, time.Duration) {
	t.Helper()
	type res struct {
		s   string
		err error
	}
	ch := make(chan res, 1)
	start := time.Now()
	go func() {
		b := make([]byte, 128)
		n, err := tty.Read(b)
		ch <- res{string(b[:n]), err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("read: %v", r.err)
		}
		return r.s, time.Since(start)
	case <-time.After(limit):
		t.Fatalf("no read within %v", limit)
	}
	return "", 0
}

// Timing: a keypress waits the hold time, a whole reply does not, and a
// string left open is ended once quiet; Drain ends a blocked Read.
func TestKeyTtyTiming(t *testing.T) {
	fake := newFakeTty()
	kt := newKeyTty(fake)
	hold := 300 * time.Millisecond // longer than holdFor: a loaded machine cannot blur the two
	kt.hold, kt.quiet = hold, 600*time.Millisecond
	if err := kt.Start(); err != nil {
		t.Fatal(err)
	}
	fake.keys <- []byte("\x1bX")
	if got, d := readWithin(t, kt, 3*time.Second); got != "\x1b[27uX" || d < hold-5*time.Millisecond {
		t.Errorf("Esc X: %q after %v, want the Escape key and X after %v", got, d, hold)
	}
	fake.keys <- []byte("\x1b]0;title\x07")
	if got, d := readWithin(t, kt, 3*time.Second); got != "\x1b]0;title\x07" || d > hold/2 {
		t.Errorf("a whole reply: %q after %v", got, d)
	}
	fake.keys <- []byte("j")
	if got, d := readWithin(t, kt, 3*time.Second); got != "j" || d > hold/2 {
		t.Errorf("a key: %q after %v", got, d)
	}
	// Bytes that keep arriving do not hold a keypress back for ever.
	fake.keys <- []byte("\x1bX")
	go func() {
		for range 5 {
			time.Sleep(hold / 4)
			fake.keys <- []byte("k")
		}
	}()
	var got string
	start := time.Now()
	for !strings.Contains(got, "kkkkk") {
		s, _ := readWithin(t, kt, 3*time.Second)
		got += s
	}
	if !strings.HasPrefix(got, "\x1b[27uX") || time.Since(start) > 4*hold {
		t.Errorf("Esc X then keys: %q after %v", got, time.Since(start))
	}
	// A string too long to hold, never ended: ST after quiet.
	fake.keys <- []byte("\x1b_" + strings.Repeat("x", maxHold+1))
	got = ""
	for len(got) < maxHold+3 {
		s, _ := readWithin(t, kt, 3*time.Second)
		got += s
	}
	if s, d := readWithin(t, kt, 3*time.Second); s != "\x1b\\" || d < kt.quiet/2 {
		t.Errorf("unterminated string: %q after %v", s, d)
	}
	done := make(chan error, 1)
	go func() { _, err := kt.Read(make([]byte, 128)); done <- err }()
	time.Sleep(10 * time.Millisecond)
	fake.Drain()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Read after Drain: no error")
		}
	case <-time.After(time.Second):
		t.Fatal("Drain did not end a blocked Read")
	}
	if err := kt.Stop(); err != nil {
		t.Fatal(err)
	}
	// It starts again (tcell's Resume).
	if err := kt.Start(); err != nil {
		t.Fatal(err)
	}
	fake.keys <- []byte("q")
	if got, _ := readWithin(t, kt, 3*time.Second); got != "q" {
		t.Errorf("after a restart: %q", got)
	}
	fake.Drain()
	kt.Stop()
}

// The whole view on a terminal: after Esc X (or Esc ]), q still quits.
// Without keyTty the same keys leave the view deaf until Esc \.
func TestViewKeysAfterEscX(t *testing.T) {
	ti, err := terminfo.LookupTerminfo("xterm-256color")
	if err != nil {
		t.Skip("no terminfo for xterm-256color:", err)
	}
	run := func(wrap bool, keys ...string) (quit bool) {
		fake := newFakeTty()
		var tty tcell.Tty = fake
		if wrap {
			tty = newKeyTty(fake)
		}
		s, err := tcell.NewTerminfoScreenFromTtyTerminfo(tty, ti)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- (&Viewer{}).Run(ctx, s, StaticSource(Frame{}, "test")) }()
		for _, k := range keys {
			time.Sleep(100 * time.Millisecond)
			fake.keys <- []byte(k)
		}
		wait := time.Second // enough to show the unwrapped view stays deaf
		if wrap {
			wait = 10 * time.Second // a loaded machine is slow to quit
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			return true
		case <-time.After(wait):
		}
		fake.keys <- []byte("\x1b\\q") // ST frees tcell's parser
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the view never quit")
		}
		return false
	}
	for _, seq := range []string{"\x1bX", "\x1b]", "\x1bXj"} {
		if !run(true, seq, "j", "q") {
			t.Errorf("%q, j, q: the view did not quit", seq)
		}
	}
	if run(false, "\x1bX", "j", "q") {
		t.Log("tcell quits after ESC X without keyTty: the parser was fixed")
	}
}
