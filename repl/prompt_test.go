package repl

import (
	"reflect"
	"strings"
	"testing"

	prompt "github.com/c-bata/go-prompt"
	"github.com/rdmalab/rdmalab/internal/testutil"
)

func TestSplitKeys(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"sg\t\r", []string{"sg", "\t", "\r"}},
		{"\x1b[A\x1b[Bx", []string{"\x1b[A", "\x1b[B", "x"}},
		{"\x1b[3~", []string{"\x1b[3~"}},
		{"\x1b[1;5C", []string{"\x1b[1;5C"}},
		{"\x1b[99;99z", []string{"\x1b[99;99z"}}, // unknown CSI, kept whole
		{"\x1b", []string{"\x1b"}},
		{"héllo\x04", []string{"héllo", "\x04"}},
		{"write 4096\rshow sq\r", []string{"write 4096", "\r", "show sq", "\r"}},
	} {
		var got []string
		for _, k := range splitKeys([]byte(tc.in)) {
			got = append(got, string(k))
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

// fakeParser plays go-prompt's parser: each Read returns the next chunk.
type fakeParser struct{ chunks [][]byte }

func (f *fakeParser) Setup() error                { return nil }
func (f *fakeParser) TearDown() error             { return nil }
func (f *fakeParser) GetWinSize() *prompt.WinSize { return &prompt.WinSize{Row: 24, Col: 80} }
func (f *fakeParser) Read() ([]byte, error) {
	if len(f.chunks) == 0 {
		return nil, errNoKey
	}
	b := f.chunks[0]
	f.chunks = f.chunks[1:]
	return b, nil
}

func reads(p *ttyParser, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		if b, err := p.Read(); err == nil {
			out = append(out, string(b))
		}
	}
	return out
}

// Keys typed ahead of an Enter wait for the next line; a signal's stop
// goes ahead of them.
func TestTTYParserHoldsTypeAhead(t *testing.T) {
	p := &ttyParser{inner: &fakeParser{chunks: [][]byte{[]byte("help\rshow sq\r")}}}
	if got := reads(p, 5); !reflect.DeepEqual(got, []string{"help", "\r"}) {
		t.Fatalf("first line: %q", got)
	}
	p.Setup() // the next line starts
	if got := reads(p, 5); !reflect.DeepEqual(got, []string{"show sq", "\r"}) {
		t.Fatalf("second line: %q", got)
	}
	p.Setup()
	p.inner = &fakeParser{chunks: [][]byte{[]byte("wri")}}
	p.inject([]byte{0x05}, []byte{0x15}, []byte{0x04})
	if got := reads(p, 5); !reflect.DeepEqual(got, []string{"\x05", "\x15", "\x04", "wri"}) {
		t.Fatalf("stop: %q", got)
	}
}

func TestHistorySearch(t *testing.T) {
	hist := []string{"write 1M", "show sgl", "write 4096", "complete"}
	var h historySearch
	b := prompt.NewBuffer()
	b.InsertText("wri", false, true)
	h.next(b, hist)
	if b.Text() != "write 4096" {
		t.Fatalf("first match %q", b.Text())
	}
	h.next(b, hist)
	if b.Text() != "write 1M" {
		t.Fatalf("second match %q", b.Text())
	}
	h.next(b, hist) // no older match: the line stays
	if b.Text() != "write 1M" {
		t.Fatalf("no match %q", b.Text())
	}
	b = prompt.NewBuffer()
	b.InsertText("sg", false, true)
	h.next(b, hist) // the line changed: a new search
	if b.Text() != "show sgl" {
		t.Fatalf("new search %q", b.Text())
	}
}

// The completion menu keeps one list while the text does not change, and
// opens on an empty line only for Tab (a
// fresh document's last key is none).
func TestLineReaderComplete(t *testing.T) {
	s := newTestSession(t)
	r := &lineReader{s: s, lastText: "\x00"}
	doc := func(text string) prompt.Document {
		b := prompt.NewBuffer()
		b.InsertText(text, false, true)
		return *b.Document()
	}
	if got := r.complete(doc("")); got != nil {
		t.Errorf("empty line without Tab: %d suggestions", len(got))
	}
	first := r.complete(doc("show "))
	if len(first) == 0 {
		t.Fatal("no suggestions for show")
	}
	if again := r.complete(doc("show ")); &again[0] != &first[0] {
		t.Error("the same text gave a new list")
	}
	r.invalidate()
	if again := r.complete(doc("show ")); &again[0] == &first[0] {
		t.Error("invalidate kept the old list")
	}
}

func TestNoColors(t *testing.T) {
	if n := len(noColors()); n != 16 {
		t.Errorf("%d colour options, want all 16", n)
	}
}

// chunked cuts s into reads of n bytes, as the terminal delivers a paste.
func chunked(s string, n int) [][]byte {
	var out [][]byte
	for len(s) > 0 {
		k := min(n, len(s))
		out = append(out, []byte(s[:k]))
		s = s[k:]
	}
	return out
}

// A paste reaches go-prompt as one key, not one per 1 KiB read: go-prompt
// sleeps 10 ms and redraws the whole line after every key.
func TestTTYParserPasteIsOneKey(t *testing.T) {
	text := "write " + strings.Repeat("1", 10<<10)
	p := &ttyParser{inner: &fakeParser{chunks: chunked(text+"\r", 1024)}}
	if got := reads(p, 5); !reflect.DeepEqual(got, []string{text, "\r"}) {
		t.Errorf("got %d keys", len(got))
	}
}

// A line over 64 KiB is cut as it is read, emptied before its Enter (so
// go-prompt's own history keeps nothing of it), and reported by
// takeOverflow with its length; the next line is read as usual.
func TestTTYParserCutsLongLine(t *testing.T) {
	long := "write " + strings.Repeat("x", 1<<20)
	p := &ttyParser{inner: &fakeParser{chunks: chunked(long+"\rengine\r", 1024)}}
	got := reads(p, 10)
	if len(got) != 4 || len(got[0]) != maxLine || !reflect.DeepEqual(got[1:], []string{"\x05", "\x15", "\r"}) {
		t.Fatalf("keys: %d, first %d bytes, then %q", len(got), len(got[0]), got[1:])
	}
	if n := p.takeOverflow(); n != len(long) {
		t.Errorf("overflow %d, want %d", n, len(long))
	}
	p.Setup()
	if got := reads(p, 5); !reflect.DeepEqual(got, []string{"engine", "\r"}) || p.takeOverflow() != 0 {
		t.Errorf("next line: %q", got)
	}
	// However long the paste, what waits in the queue stays bounded.
	p = &ttyParser{inner: &fakeParser{chunks: chunked(strings.Repeat("y", 8<<20), 1024)}}
	p.hold = true // keys typed ahead of a running command
	for range 10 {
		p.Read()
	}
	queued := 0
	for _, k := range p.queued {
		queued += len(k.b)
	}
	if queued > maxLine || len(p.queued) > 100 {
		t.Errorf("%d keys, %d bytes queued", len(p.queued), queued)
	}
}

// Ctrl-C (or Ctrl-U) after an over-long paste empties the line: what is
// typed next runs.
func TestTTYParserClearForgetsOverflow(t *testing.T) {
	for _, clear := range []string{"\x03", "\x15"} {
		in := strings.Repeat("x", 100<<10) + clear + "help\r"
		p := &ttyParser{inner: &fakeParser{chunks: chunked(in, 1024)}}
		got := reads(p, 10)
		if !reflect.DeepEqual(got[1:], []string{clear, "help", "\r"}) || p.takeOverflow() != 0 {
			t.Errorf("%q: %q", clear, got[1:])
		}
	}
}

// An escape sequence go-prompt does not know would be inserted as text
// and echoed raw (ESC[2J clears the screen): it is dropped.
func TestTTYParserDropsUnknownEscapes(t *testing.T) {
	p := &ttyParser{inner: &fakeParser{chunks: [][]byte{[]byte("sh\x1b[2Jow\x1b[99;99z sq\x1b[A\r")}}}
	if got := reads(p, 10); !reflect.DeepEqual(got, []string{"show sq", "\x1b[A", "\r"}) {
		t.Errorf("%q", got)
	}
}

// The completer does no work on a line that will be refused.
func TestCompleteLongLine(t *testing.T) {
	s := newTestSession(t)
	if got := s.Complete("show " + strings.Repeat("s", maxLine)); got != nil {
		t.Errorf("%d suggestions", len(got))
	}
}

// A paste that came in one byte a read is joined in memory linear in
// it: twice the reads allocate under three times the bytes (the key was
// copied at each read, 4 times).
func TestTTYParserPasteJoinsOnce(t *testing.T) {
	cost := func(n int) uint64 {
		p := &ttyParser{inner: &fakeParser{chunks: chunked(strings.Repeat("x", n), 1)}}
		var got []byte
		b := testutil.Allocated(func() { got, _ = p.Read() })
		if len(got) != n {
			t.Fatalf("the paste came as %d bytes, want %d in one key", len(got), n)
		}
		return b
	}
	if one, two := cost(8<<10), cost(16<<10); two > 3*one {
		t.Errorf("8 KiB in 1-byte reads allocate %d bytes, 16 KiB %d: %.1f times", one, two, float64(two)/float64(one))
	}
}
