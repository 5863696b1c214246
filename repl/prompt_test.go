package repl

import (
	"reflect"
	"testing"

	prompt "github.com/c-bata/go-prompt"
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
