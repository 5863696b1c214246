package repl

import (
	"fmt"
	"os"

	"golang.org/x/term"
)

// terminal is the state of the user's terminal before rdmalab touched it.
// go-prompt 0.2.6 saves the state it found and then edits that copy into
// raw mode, so its own "restore" leaves the terminal raw
// (c-bata/go-prompt#228); this is the copy that is really restored.
type terminal struct {
	fd    int
	state *term.State
}

// saveTerminal records f's terminal state.
func saveTerminal(f *os.File) (*terminal, error) {
	fd := int(f.Fd())
	st, err := term.GetState(fd)
	if err != nil {
		return nil, fmt.Errorf("read the terminal state: %w", err)
	}
	return &terminal{fd: fd, state: st}, nil
}

// restore puts the saved state back; it is safe to call any number of
// times.
func (t *terminal) restore() error {
	if err := term.Restore(t.fd, t.state); err != nil {
		return fmt.Errorf("restore the terminal: %w", err)
	}
	return nil
}

// size is the terminal's width and height, 80x24 when unknown.
func (t *terminal) size() (cols, rows int) {
	w, h, err := term.GetSize(t.fd)
	if err != nil || w <= 0 || h <= 0 {
		return 80, 24
	}
	return w, h
}
