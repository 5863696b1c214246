package repl

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// tour is the first session, step by step: `help tour`.
const tour = `A first session: one NFS WRITE, from the client's Send to the acknowledged reply.

  write 64k       the client posts a Send advertising a Read chunk
  complete        the Send lands: svc_rdma_wc_receive queues the call
  recv            nfsd0 decodes the transport header and chunk lists
  readlist        it maps the data onto rq_pages (SGLs), posts the Reads
  show sgl        which pages, offsets and lengths the Reads fill
  complete all    the Reads are done: svc_rdma_wc_read_done wakes nfsd0
  reply           the WRITE runs; svc_rdma_sendto posts the reply
  complete        the Send completes: xpt_acked_pos advances
  show positions  sc_post_seq, xpt_acked_pos, the reply in the DRC

Then: read 64k the same way (the data goes back by RDMA Write); trace off to see only where runs stop; continue instead of recv, readlist and reply; set profile seed to meet the historical bugs; learn for the lessons. Tab completes everything.
`

func runHelp(c *Ctx, a Args, out io.Writer) error {
	var b strings.Builder
	err := help(c, a, &b)
	if a.Has("json") {
		fmt.Fprint(out, b.String())
	} else {
		fmt.Fprint(out, fitText(b.String(), textWidth))
	}
	return err
}

func help(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	if a.Has("json") {
		b, err := safe.MarshalIndent(s.cmds, "", "  ")
		if err != nil {
			return fmt.Errorf("encode JSON: %w", err)
		}
		fmt.Fprintf(out, "%s\n", b)
		return nil
	}
	if len(a.Pos) == 0 {
		writeHelpList(out, s.cmds)
		return nil
	}
	topic := a.Pos[0]
	if w, ok := lessonWords[topic]; ok && s.lesson != nil && len(a.Pos) == 1 {
		writeLessonWordHelp(out, s, topic, w)
		return nil
	}
	if topic == "tour" {
		fmt.Fprint(out, reflow(tour))
		return nil
	}
	cmd := s.lookup(topic)
	if cmd == nil {
		if t, ok := findTarget(topic); ok {
			writeTargetHelp(out, t)
			return nil
		}
		if st, ok := engine.FindSetting(topic); ok {
			fmt.Fprintf(out, "set %s VALUE\n  %s\n  accepts %s\n", st.Name, st.Short, st.Accepts(s.set))
			return nil
		}
		msg := fmt.Sprintf("no help for %q", topic)
		if near := s.nearestCommand([]string{topic}); near != "" {
			return fmt.Errorf("%s: did you mean `help %s`?", msg, near)
		}
		return fmt.Errorf("%s: help lists the commands", msg)
	}
	if len(a.Pos) > 1 {
		if cmd.Name == "show" {
			if t, ok := findTarget(a.Pos[1]); ok {
				writeTargetHelp(out, t)
				return nil
			}
		}
		if cmd.Name == "set" {
			if st, ok := engine.FindSetting(a.Pos[1]); ok {
				fmt.Fprintf(out, "set %s VALUE\n  %s\n  accepts %s\n", st.Name, st.Short, st.Accepts(s.set))
				return nil
			}
		}
		return fmt.Errorf("help %s: no topic %q", cmd.Name, a.Pos[1])
	}
	writeCommandHelp(out, cmd)
	return nil
}

// lessonWords are what the words a paced lesson takes for its own mean
// there; `help WORD` says so while a lesson runs.
var lessonWords = map[string]string{
	"skip":  "goes on to the next step without running this one; the checks after it may not hold.",
	"back":  "goes back one step: a fresh lab, and the steps before it run again, so the step can be taken again.",
	"again": "shows the step again: its narration and the command Enter runs.",
	"hint":  "says what the step's author left as a hint, when there is one.",
	"quit":  "leaves the lesson at this step; the lab stays as it is and the session goes on.",
	"exit":  "leaves the lesson at this step, as quit does; the session goes on.",
}

// writeLessonWordHelp says what word does in the running lesson, and
// where the command of that name, if any, is explained.
func writeLessonWordHelp(out io.Writer, s *Session, word, what string) {
	fmt.Fprintf(out, "in lesson %s, %s %s\n", s.lesson.entry.Name(), word, what)
	fmt.Fprintln(out, "Enter, or the proposed command typed as it is, runs the step; any other command looks around and the step waits.")
	if cmd := s.lookup(word); cmd != nil {
		fmt.Fprintf(out, "Outside a lesson, %s is the command: %s\n", word, cmd.Short)
	}
}

// writeHelpList lists the commands by group.
func writeHelpList(out io.Writer, cmds []*Command) {
	fmt.Fprintln(out, "Commands (help CMD explains one, help tour walks a first WRITE; Tab completes):")
	for _, g := range groups() {
		fmt.Fprintf(out, "\n%s\n", g.title)
		for _, c := range cmds {
			if c.Group == g.g {
				fmt.Fprintf(out, "  %-11s %s\n", c.Name, c.Short)
			}
		}
	}
}

func writeCommandHelp(out io.Writer, c *Command) {
	fmt.Fprintf(out, "usage: %s\n  %s\n", c.Usage, c.Short)
	if len(c.Aliases) > 0 {
		fmt.Fprintf(out, "  also: %s\n", strings.Join(c.Aliases, ", "))
	}
	if c.Long != "" {
		fmt.Fprintf(out, "\n%s\n", indent(reflow(strings.TrimRight(c.Long, "\n")), "  "))
	}
	if len(c.Flags) > 0 {
		fmt.Fprintln(out, "\noptions:")
		for _, f := range c.Flags {
			name := "--" + f.Name
			if f.Value != "" {
				name += " " + f.Value
			}
			fmt.Fprintf(out, "  %-16s %s\n", name, f.Usage)
		}
	}
	if c.Example != "" {
		fmt.Fprintf(out, "\nexample:\n%s\n", indent(c.Example, "  "))
	}
	if len(c.Kernel) > 0 {
		fmt.Fprintf(out, "\nkernel functions:\n  %s\n", strings.Join(kernel.Names(c.Kernel), ", "))
	}
}

func writeTargetHelp(out io.Writer, t showTarget) {
	usage := "show " + t.Name
	if t.Arg != "" {
		usage += " [" + t.Arg + "]"
	}
	fmt.Fprintf(out, "usage: %s [--json]\n  %s\n", usage, t.Short)
	if len(t.Aliases) > 0 {
		fmt.Fprintf(out, "  also: %s\n", strings.Join(t.Aliases, ", "))
	}
	if len(t.Kernel) > 0 {
		fmt.Fprintf(out, "kernel functions:\n  %s\n", strings.Join(kernel.Names(t.Kernel), ", "))
	}
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

// settingsHelp lists the settings for `help set`.
func settingsHelp() string {
	var b strings.Builder
	for _, st := range engine.SettingsTable() {
		if st.Name[0] == 'B' {
			continue
		}
		fmt.Fprintf(&b, "  %-16s %s\n", st.Name, st.Short)
	}
	fmt.Fprintf(&b, "  %-16s %s\n", "B1..B13", "one historical bug at a time: on, off or default (show bugs)")
	return b.String()
}
