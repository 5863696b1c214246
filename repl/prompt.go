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

// readLine reads one line; eof is Ctrl-D on an empty line. A line over
// maxLine comes back as "" with its length in long: the parser dropped
// the rest and emptied the line before its Enter reached go-prompt, so
// go-prompt's own history does not keep it either.
func (r *lineReader) readLine() (line string, long int, eof bool) {
	r.ended = prompt.NotDefined
	line = r.p.Input()
	if n := r.parser.takeOverflow(); n > 0 {
		return "", n, false
	}
	if len(line) > maxLine { // recalled history plus typing: the guard
		return "", len(line), false
	}
	return line, 0, r.ended == prompt.ControlD
}

// stop ends the line being read as Ctrl-D would: go to the end of the
// line, delete it, then Ctrl-D on the empty line.
func (r *lineReader) stop() {
	r.parser.inject([]byte{0x05}, []byte{0x15}, []byte{0x04})
}

func (r *lineReader) complete(d prompt.Document) (out []prompt.Suggest) {
	before := d.TextBeforeCursor()
	if len(before) > maxLine {
		return nil // nothing to complete, and not worth a pass per key
	}
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

// ttyParser is go-prompt's own input parser, fixed in these ways:
//   - TearDown puts back the state saved before go-prompt ran, on every
//     way out of Input (Enter, Ctrl-D, and the stop a signal injects);
//   - Read hands out one key at a time: go-prompt looks a whole read up
//     as one key, so fast typing or a paste ("sg<Tab><Enter>" in one
//     read) would insert control characters into the line;
//   - after an Enter it holds the keys typed ahead until the next line
//     starts, because go-prompt drops whatever it read past the Enter;
//   - a paste is handed out as one key, not one per 1 KiB read: go-prompt
//     sleeps 10 ms between reads and redraws the whole line (converting
//     it to runes several times) after each key, so a 1 MiB paste took
//     minutes, quadratic in its length;
//   - a line is cut at maxLine as it is read, so go-prompt never holds
//     more, and marked: at its Enter the line is emptied first (Ctrl-E,
//     Ctrl-U) and readLine refuses it;
//   - an escape sequence go-prompt does not know is dropped: go-prompt
//     would insert it into the line as text and echo it raw.
type ttyParser struct {
	inner prompt.ConsoleParser
	term  *terminal

	mu     sync.Mutex
	queued []key
	hold   bool
	qLine  int  // text bytes queued for the line being typed
	over   int  // the line being read went over maxLine: its length
	enter  bool // its Enter comes after Ctrl-E and Ctrl-U emptied it
}

// key is one key press, or (b == nil) the mark that the line it ends went
// over maxLine, by dropped bytes.
type key struct {
	b       []byte
	dropped int
	line    int // with the mark: the line's length so far
}

// maxDrain bounds what one Read takes from the terminal.
const maxDrain = 1 << 20

var _ prompt.ConsoleParser = (*ttyParser)(nil)

// errNoKey tells go-prompt's reader there is nothing to read now.
var errNoKey = errors.New("no key pressed")

func (t *ttyParser) Setup() error {
	t.mu.Lock()
	t.hold, t.over, t.enter = false, 0, false
	t.mu.Unlock()
	return t.inner.Setup()
}

// takeOverflow is the length of the line just read when it went over
// maxLine, else 0.
func (t *ttyParser) takeOverflow() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.over
	t.over = 0
	return n
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
	// Take all the terminal has (the fd is non-blocking), not one read.
	for n := 0; n < maxDrain; {
		b, err := t.inner.Read()
		if err != nil || len(b) == 0 {
			break
		}
		n += len(b)
		for _, k := range splitKeys(b) {
			t.queue(k)
		}
	}
	for !t.hold && len(t.queued) > 0 {
		k := t.queued[0]
		t.queued = t.queued[1:]
		switch {
		case k.b == nil:
			t.over = max(t.over, k.line+k.dropped)
			continue
		case isText(k.b):
			// A paste arrives in many reads: hand it out as one key.
			return t.joinText(k.b), nil
		case isEnter(k.b) && t.over > 0 && !t.enter:
			// Empty go-prompt's line first, so it keeps nothing of it.
			t.enter = true
			t.queued = append([]key{{b: []byte{0x15}}, k}, t.queued...)
			return []byte{0x05}, nil
		case isEnter(k.b):
			t.hold = true
		case isClear(k.b) && !t.enter:
			t.over = 0 // the user emptied the line that was too long
		}
		return k.b, nil
	}
	return nil, errNoKey
}

// joinText is first and the text keys queued after it, as one key. The
// keys are copied once: adding each to the ones before copied those
// again, quadratic in the reads a paste came in.
func (t *ttyParser) joinText(first []byte) []byte {
	n, j := len(first), 0
	for ; j < len(t.queued) && t.queued[j].b != nil && isText(t.queued[j].b); j++ {
		n += len(t.queued[j].b)
	}
	if j == 0 {
		return first
	}
	b := append(make([]byte, 0, n), first...)
	for _, k := range t.queued[:j] {
		b = append(b, k.b...)
	}
	t.queued = t.queued[j:]
	return b
}

// queue adds a key read from the terminal, keeping the line it belongs
// to within maxLine.
func (t *ttyParser) queue(b []byte) {
	switch {
	case isText(b):
		if room := maxLine - t.qLine; len(b) > room {
			room = max(room, 0)
			if room > 0 {
				t.queued = append(t.queued, key{b: b[:room:room]})
			}
			if n := len(t.queued); n > 0 && t.queued[n-1].b == nil {
				t.queued[n-1].dropped += len(b) // one mark, however long the paste
			} else {
				t.queued = append(t.queued, key{dropped: len(b) - room, line: t.qLine + room})
			}
			t.qLine += len(b)
			return
		}
		t.qLine += len(b)
	case isEnter(b) || isClear(b):
		t.qLine = 0
	case b[0] == 0x1b && len(b) > 1 && prompt.GetKey(b) == prompt.NotDefined:
		return
	}
	t.queued = append(t.queued, key{b: b})
}

func isText(b []byte) bool  { return len(b) > 0 && b[0] >= 0x20 && b[0] != 0x7f && b[0] != 0x1b }
func isEnter(b []byte) bool { return len(b) == 1 && (b[0] == '\r' || b[0] == '\n') }

// isClear is Ctrl-C or Ctrl-U: the line starts afresh.
func isClear(b []byte) bool { return len(b) == 1 && (b[0] == 0x03 || b[0] == 0x15) }

// inject puts key presses ahead of the terminal's; safe from any
// goroutine.
func (t *ttyParser) inject(keys ...[]byte) {
	t.mu.Lock()
	ks := make([]key, 0, len(keys)+len(t.queued))
	for _, b := range keys {
		ks = append(ks, key{b: b})
	}
	t.queued = append(ks, t.queued...)
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
