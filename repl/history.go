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

// maxHistoryTail bounds what a start reads of the history file, which
// grows for as long as rdmalab is used: room for maxHistoryLoad lines of
// the longest kind.
const maxHistoryTail = maxHistoryLoad * (maxLine + 1)

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
	lines, skipped = loadHistory(f)
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

// loadHistory reads the last lines of the history: the file's tail, from
// 64 KiB up, doubled until it holds maxHistoryLoad lines or is the whole
// file, and never more than maxHistoryTail. A start read the whole file
// (200 MB: 1 s); now it reads what it recalls.
func loadHistory(f *os.File) (lines []string, skipped int) {
	st, err := f.Stat()
	if err != nil {
		return nil, 1
	}
	size := st.Size()
	for w := int64(64 << 10); ; w *= 2 {
		w = min(w, size, maxHistoryTail)
		lines, skipped = readHistory(f, size-w, size)
		if len(lines) >= maxHistoryLoad || w == size || w == maxHistoryTail {
			return lines, skipped
		}
	}
}

// readHistory reads the lines of r that start at off or after, up to
// size: a line that starts before off is left out, whole.
func readHistory(r io.ReaderAt, off, size int64) (lines []string, skipped int) {
	// Read from the byte before off: the line that ends there, if only
	// with that byte, is not one of ours.
	start := max(off-1, 0)
	sc := newLineScanner(io.NewSectionReader(r, start, size-start))
	first := off > 0
	for {
		l, long, rerr := sc.next()
		if rerr != nil {
			// A read error keeps the lines read so far.
			if !errors.Is(rerr, io.EOF) {
				skipped++
			}
			break
		}
		if first {
			first = false
			continue
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
	return lines, skipped
}

// Close closes the file.
func (h *historyFile) Close() error {
	if h == nil {
		return nil
	}
	return h.f.Close()
}
