package repl

import (
	"fmt"
	"strings"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/internal/nearest"
)

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
