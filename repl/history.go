package repl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxHistoryLoad is how many lines of the history file a session recalls.
const maxHistoryLoad = 1000

// DefaultHistoryFile is $XDG_STATE_HOME/rdmalab/history, or
// ~/.local/state/rdmalab/history; "" when neither can be found.
func DefaultHistoryFile() string { return stateFile("history") }

// DefaultProgressFile is where the lessons finished are recorded, beside
// the history.
func DefaultProgressFile() string { return stateFile("lessons.json") }

// stateFile is name in rdmalab's XDG state directory, or "" without one.
func stateFile(name string) string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "rdmalab", name)
}

// historyFile appends each line entered to the history file as it is
// entered, so nothing is lost however the session ends.
type historyFile struct {
	f *os.File
}

// openHistory loads the last lines of the history at path and opens it
// for appending, creating it (mode 0600, in a 0700 directory) if needed.
// Lines it cannot offer back are skipped, never the whole history: lines
// over 64 KiB, and lines holding what would act on the terminal when
// recalled (an escape sequence). skipped counts them.
func openHistory(path string) (h *historyFile, lines []string, skipped int, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, 0, fmt.Errorf("history: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("history: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm() != 0o600 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, nil, 0, fmt.Errorf("history: %w", err)
		}
	}
	sc := newLineScanner(f)
	for {
		l, long, rerr := sc.next()
		if rerr != nil {
			// A read error keeps the lines read so far.
			if !errors.Is(rerr, io.EOF) {
				skipped++
			}
			break
		}
		l = strings.TrimSpace(l)
		switch {
		case long > 0 || shown(l) != l:
			skipped++
		case l != "":
			lines = append(lines, l)
			if len(lines) >= 2*maxHistoryLoad {
				lines = append(lines[:0], lines[len(lines)-maxHistoryLoad:]...)
			}
		}
	}
	if len(lines) > maxHistoryLoad {
		lines = lines[len(lines)-maxHistoryLoad:]
	}
	return &historyFile{f: f}, lines, skipped, nil
}

// Append writes one line (one write, O_APPEND).
func (h *historyFile) Append(line string) error {
	if h == nil {
		return nil
	}
	if _, err := h.f.WriteString(line + "\n"); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// Close closes the file.
func (h *historyFile) Close() error {
	if h == nil {
		return nil
	}
	return h.f.Close()
}
