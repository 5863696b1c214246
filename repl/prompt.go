package repl

// The one file that knows go-prompt (v0.2.6). It is used through
// Prompt.Input, one line at a time, rather than Prompt.Run: Run installs
// its own SIGINT/SIGTERM handler that calls os.Exit (skipping every
// defer), and runs the executor with the terminal still raw. With Input
// the loop, the signals and the terminal state are ours.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	prompt "github.com/c-bata/go-prompt"
)

// lineReader reads command lines at the terminal.
type lineReader struct {
	p      *prompt.Prompt
	parser *ttyParser
	s      *Session
	ended  prompt.Key // the key that ended the last line

	// The completer's last answer, so the menu stays the same list while
	// the text does not change (go-prompt indexes it by position).
	lastText string
	lastSugg []prompt.Suggest

	search historySearch
}

// newLineReader builds the prompt. go-prompt opens /dev/tty in prompt.New
// and panics when it cannot; that becomes an error here.
func newLineReader(s *Session, t *terminal, noColor bool, history []string) (r *lineReader, err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("open the terminal: %v", x)
		}
	}()
	r = &lineReader{s: s, lastText: "\x00"}
	r.parser = &ttyParser{inner: prompt.NewStandardInputParser(), term: t}
	opts := []prompt.Option{
		prompt.OptionParser(r.parser),
		prompt.OptionTitle("rdmalab"),
		prompt.OptionLivePrefix(func() (string, bool) { return s.PromptText(), true }),
		prompt.OptionCompletionWordSeparator(" ="),
		prompt.OptionHistory(history),
		prompt.OptionMaxSuggestion(8),
		prompt.OptionBreakLineCallback(func(d *prompt.Document) { r.ended = d.LastKeyStroke() }),
		prompt.OptionAddKeyBind(prompt.KeyBind{Key: prompt.ControlR, Fn: func(b *prompt.Buffer) {
			r.search.next(b, s.hist)
		}}),
	}
	if noColor {
		opts = append(opts, noColors()...)
	}
	r.p = prompt.New(func(string) {}, r.complete, opts...)
	return r, nil
}

// readLine reads one line; eof is Ctrl-D on an empty line.
func (r *lineReader) readLine() (line string, eof bool) {
	r.ended = prompt.NotDefined
	line = r.p.Input()
	return line, r.ended == prompt.ControlD
}

// stop ends the line being read as Ctrl-D would: go to the end of the
// line, delete it, then Ctrl-D on the empty line.
func (r *lineReader) stop() {
	r.parser.inject([]byte{0x05}, []byte{0x15}, []byte{0x04})
}

func (r *lineReader) complete(d prompt.Document) (out []prompt.Suggest) {
	before := d.TextBeforeCursor()
	if strings.TrimSpace(before) == "" {
		// On an empty line the menu (every command) opens only on Tab,
		// and stays while Tab or the arrows move in it.
		switch d.LastKeyStroke() {
		case prompt.Tab, prompt.BackTab:
		case prompt.Up, prompt.Down:
			if before == r.lastText {
				return r.lastSugg
			}
			return nil
		default:
			r.lastText, r.lastSugg = before, nil
			return nil
		}
	} else if before == r.lastText {
		return r.lastSugg
	}
	defer func() {
		if recover() != nil {
			out = nil
		}
		r.lastText, r.lastSugg = before, out
	}()
	for _, sg := range r.s.Complete(before) {
		out = append(out, prompt.Suggest{Text: sg.Text, Description: sg.Desc})
	}
	return out
}

// invalidate forgets the cached completions (the snapshot changed).
func (r *lineReader) invalidate() { r.lastText, r.lastSugg = "\x00", nil }

func noColors() []prompt.Option {
	d := prompt.DefaultColor
	return []prompt.Option{
		prompt.OptionPrefixTextColor(d), prompt.OptionPrefixBackgroundColor(d),
		prompt.OptionInputTextColor(d), prompt.OptionInputBGColor(d),
		prompt.OptionPreviewSuggestionTextColor(d), prompt.OptionPreviewSuggestionBGColor(d),
		prompt.OptionSuggestionTextColor(d), prompt.OptionSuggestionBGColor(d),
		prompt.OptionSelectedSuggestionTextColor(d), prompt.OptionSelectedSuggestionBGColor(d),
		prompt.OptionDescriptionTextColor(d), prompt.OptionDescriptionBGColor(d),
		prompt.OptionSelectedDescriptionTextColor(d), prompt.OptionSelectedDescriptionBGColor(d),
		prompt.OptionScrollbarThumbColor(d), prompt.OptionScrollbarBGColor(d),
	}
}

// ttyParser is go-prompt's own input parser, fixed in three ways:
//   - TearDown puts back the state saved before go-prompt ran, on every
//     way out of Input (Enter, Ctrl-D, and the stop a signal injects);
//   - Read hands out one key at a time: go-prompt looks a whole read up
//     as one key, so fast typing or a paste ("sg<Tab><Enter>" in one
//     read) would insert control characters into the line;
//   - after an Enter it holds the keys typed ahead until the next line
//     starts, because go-prompt drops whatever it read past the Enter.
type ttyParser struct {
	inner prompt.ConsoleParser
	term  *terminal

	mu     sync.Mutex
	queued [][]byte
	hold   bool
}

var _ prompt.ConsoleParser = (*ttyParser)(nil)

// errNoKey tells go-prompt's reader there is nothing to read now.
var errNoKey = errors.New("no key pressed")

func (t *ttyParser) Setup() error {
	t.mu.Lock()
	t.hold = false
	t.mu.Unlock()
	return t.inner.Setup()
}

func (t *ttyParser) TearDown() error {
	err := t.inner.TearDown()
	if rerr := t.term.restore(); rerr != nil {
		return rerr
	}
	return err
}

func (t *ttyParser) GetWinSize() *prompt.WinSize {
	cols, rows := t.term.size()
	return &prompt.WinSize{Row: uint16(rows), Col: uint16(cols)}
}

func (t *ttyParser) Read() ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if b, err := t.inner.Read(); err == nil && len(b) > 0 {
		t.queued = append(t.queued, splitKeys(b)...)
	}
	if t.hold || len(t.queued) == 0 {
		return nil, errNoKey
	}
	b := t.queued[0]
	t.queued = t.queued[1:]
	if len(b) == 1 && (b[0] == '\r' || b[0] == '\n') {
		t.hold = true
	}
	return b, nil
}

// inject puts key presses ahead of the terminal's; safe from any
// goroutine.
func (t *ttyParser) inject(keys ...[]byte) {
	t.mu.Lock()
	t.queued = append(append([][]byte(nil), keys...), t.queued...)
	t.mu.Unlock()
}

// splitKeys cuts what one read returned into keys: an escape sequence go-
// prompt knows (or any CSI sequence), a control character, or a run of
// printable text.
func splitKeys(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n := keyLen(b)
		out = append(out, b[:n:n])
		b = b[n:]
	}
	return out
}

func keyLen(b []byte) int {
	switch c := b[0]; {
	case c == 0x1b:
		best := 1
		for _, seq := range prompt.ASCIISequences {
			if len(seq.ASCIICode) > best && bytes.HasPrefix(b, seq.ASCIICode) {
				best = len(seq.ASCIICode)
			}
		}
		if best == 1 && len(b) > 2 && b[1] == '[' {
			// An unknown CSI: parameters, intermediates, a final byte.
			for i := 2; i < len(b); i++ {
				if b[i] >= 0x40 && b[i] <= 0x7e {
					return i + 1
				}
			}
		}
		return best
	case c < 0x20 || c == 0x7f:
		return 1
	}
	n := 0
	for n < len(b) && b[n] >= 0x20 && b[n] != 0x7f && b[n] != 0x1b {
		n++
	}
	return n
}

// historySearch is Ctrl-R: the text typed is the query; each Ctrl-R puts
// the next older history line containing it on the line.
type historySearch struct {
	query string
	at    int    // index of the last match
	shown string // the line the last match put there
}

func (h *historySearch) next(b *prompt.Buffer, hist []string) {
	text := b.Text()
	if text != h.shown || h.shown == "" {
		h.query, h.at = text, len(hist)
	}
	for i := h.at - 1; i >= 0; i-- {
		if strings.Contains(hist[i], h.query) && hist[i] != text {
			b.CursorRight(len([]rune(b.Document().TextAfterCursor())))
			b.DeleteBeforeCursor(len([]rune(b.Text())))
			b.InsertText(hist[i], false, true)
			h.at, h.shown = i, hist[i]
			return
		}
	}
}
