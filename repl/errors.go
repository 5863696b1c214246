package repl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/internal/nearest"
)

// Explain renders a command's error for the user: an engine errno gets
// its generic text (a command's errno comes from the provider or the
// client, not from a svcrdma function, whose returns the notes explain),
// a missing completion gets a hint.
func Explain(err error) string {
	msg := err.Error()
	var e engine.Errno
	switch {
	case errors.As(err, &e):
		if strings.HasSuffix(msg, e.Error()) {
			return msg + ": " + e.Strerror()
		}
		return fmt.Sprintf("%s (%s: %s)", msg, e.Error(), e.Strerror())
	case errors.Is(err, engine.ErrNothingPending):
		return msg + " (post something first: write, read, readdir or a server step that posts)"
	}
	return msg
}

// unknownCommand says a command does not exist and suggests the nearest
// one, looking at command names and at the arguments of show and set.
func (s *Session) unknownCommand(w []string) error {
	msg := fmt.Sprintf("unknown command %q", w[0])
	if near := s.nearestCommand(w); near != "" {
		return fmt.Errorf("%s: did you mean `%s`?", msg, near)
	}
	return fmt.Errorf("%s: type help for the list", msg)
}

// nearestCommand is the phrase ("write", "show sgl", "set page_size") the
// user most likely meant, or "".
func (s *Session) nearestCommand(w []string) string {
	type cand struct{ phrase, key string }
	var cands []cand
	for _, c := range s.cmds {
		cands = append(cands, cand{c.Name, c.Name})
		for _, a := range c.Aliases {
			cands = append(cands, cand{c.Name, a})
		}
	}
	for _, t := range showTargets() {
		cands = append(cands, cand{"show " + t.Name, t.Name})
		for _, a := range t.Aliases {
			cands = append(cands, cand{"show " + t.Name, a})
		}
	}
	for _, st := range engine.SettingsTable() {
		cands = append(cands, cand{"set " + st.Name, st.Name})
	}
	word := strings.ToLower(w[0])
	best, bestD := "", 1<<30
	for _, c := range cands {
		d := nearest.Distance(word, c.key)
		if len(word) >= 2 && strings.HasPrefix(c.key, word) {
			d = 0
		}
		if len(w) > 1 && strings.Contains(c.phrase, " ") {
			d = min(d, nearest.Distance(strings.ToLower(w[0]+" "+w[1]), c.phrase))
		}
		if d < bestD {
			best, bestD = c.phrase, d
		}
	}
	if bestD <= nearest.Tolerance(word) {
		return best
	}
	return ""
}
