package repl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/internal/nearest"
)

// fmtBytes is n with a short binary form when it has one: 1048576 (1M).
func fmtBytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d (%dM)", n, n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d (%dk)", n, n>>10)
	}
	return strconv.Itoa(n)
}

// parseStatus reads a completion status name, suggesting the nearest.
func parseStatus(s string) (engine.Status, error) {
	st, err := engine.ParseStatus(s)
	if err == nil {
		return st, nil
	}
	var names []string
	for _, x := range engine.Statuses() {
		names = append(names, x.String())
	}
	if near := nearest.Word(s, names); near != "" {
		return 0, fmt.Errorf("unknown completion status %q: did you mean %s?", s, near)
	}
	return 0, fmt.Errorf("unknown completion status %q (want one of %s)", s, strings.Join(names, ", "))
}
