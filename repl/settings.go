package repl

import (
	"fmt"
	"io"

	"github.com/rdmalab/rdmalab/engine"
)

// applySetting changes one setting: on the running lab when it can, by
// rebuilding the lab when the setting shapes the transport.
func (s *Session) applySetting(st engine.Setting, value string, out io.Writer) error {
	next, same, err := st.Change(s.set, value)
	if err != nil {
		return err
	}
	if same {
		fmt.Fprintf(out, "%s is already %s\n", st.Name, st.Get(next))
		return nil
	}
	ok, err := s.lab.ApplySetting(st, next)
	if err != nil {
		return err
	}
	if ok {
		s.set = next
		fmt.Fprintf(out, "%s = %s (changed in the running lab)\n", st.Name, st.Get(next))
		return nil
	}
	inflight := s.lab.RunState().Outstanding
	if err := s.rebuild(next); err != nil {
		return err
	}
	why := "it shapes the transport"
	if st.UnlessLive() != "" {
		why = st.UnlessLive()
	}
	fmt.Fprintf(out, "%s = %s: %s, so the lab was rebuilt", st.Name, st.Get(next), why)
	if inflight > 0 {
		fmt.Fprintf(out, " (%d call(s) in flight were dropped)", inflight)
	}
	fmt.Fprintln(out)
	return nil
}
