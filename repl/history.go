package repl

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxHistoryLoad is how many lines of the history file a session recalls.
const maxHistoryLoad = 1000

// DefaultHistoryFile is $XDG_STATE_HOME/rdmalab/history, or
// ~/.local/state/rdmalab/history; "" when neither can be found.
func DefaultHistoryFile() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "rdmalab", "history")
}

// historyFile appends each line entered to the history file as it is
// entered, so nothing is lost however the session ends.
type historyFile struct {
	f *os.File
}

// openHistory loads the last lines of the history at path and opens it
// for appending, creating it (mode 0600, in a 0700 directory) if needed.
func openHistory(path string) (*historyFile, []string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm() != 0o600 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("history: %w", err)
		}
	}
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("history %s: %w", path, err)
	}
	if len(lines) > maxHistoryLoad {
		lines = lines[len(lines)-maxHistoryLoad:]
	}
	return &historyFile{f: f}, lines, nil
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
