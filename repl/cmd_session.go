package repl

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/internal/nearest"
)

func sessionCommands() []*Command {
	return []*Command{
		{
			Name: "help", Aliases: []string{"?"}, Group: GroupSession,
			Usage:   "help [CMD|tour] [--json]",
			Short:   "list the commands, or explain one",
			Example: "help\nhelp write\nhelp show\nhelp tour",
			Args:    []Arg{{Name: "CMD", Optional: true, Complete: completeHelpTopics}, {Name: "ARG", Optional: true, Complete: completeTargets}},
			Flags:   []Flag{{Name: "json", Usage: "the command table as JSON"}},
			Run:     runHelp,
		},
		{
			Name: "quit", Aliases: []string{"exit"}, Group: GroupSession,
			Usage:   "quit",
			Short:   "leave rdmalab (Ctrl-D does the same)",
			Example: "quit",
			Run: func(c *Ctx, a Args, out io.Writer) error {
				c.S.quit = true
				return nil
			},
		},
		{
			Name: "engine", Group: GroupSession,
			Usage: "engine [sim | ibv DEVICE]",
			Short: "show or choose the provider: sim, or ibv DEVICE",
			Long: "sim is rdmalab's embedded provider: a deterministic model of Soft-RoCE (rxe) that moves\n" +
				"real bytes. ibv drives a real device (rxe or an HCA) through libibverbs: both QPs on\n" +
				"DEVICE, or the client's on CLIENT_DEVICE. The device runs each work request when it is\n" +
				"posted; its completions wait until complete hands them to the model. A new engine\n" +
				"starts from its device's limits (set lists them; max_qp_wr no more than max_cqe); a\n" +
				"lower device setting is honoured, a higher one refused. What only the sim can do\n" +
				"(inject, complete --status, the virtual wire and its capture, link_rate, latency, the\n" +
				"MR path) is refused on ibv with the reason. The\n" +
				"choice starts a new lab and lasts for the session (rdmalab --engine ibv:DEVICE, or\n" +
				"RDMALAB_ENGINE, chooses it from the start). ibv needs a binary built with -tags ibv.",
			Example: "engine\nengine sim\nengine ibv rxe0\nengine ibv rxe0 rxe1",
			Args: []Arg{{Name: "PROVIDER", Optional: true, Complete: completeEngines}, {Name: "DEVICE", Optional: true, Complete: completeEngines},
				{Name: "CLIENT_DEVICE", Optional: true, Complete: completeEngines}},
			Run: runEngine,
		},
		{
			Name: "set", Group: GroupSession,
			Usage: "set [NAME [VALUE]]",
			Short: "change a setting (alone: list the settings)",
			Long: "Without arguments, lists the settings; with NAME only, explains it. Settings that shape\n" +
				"the transport (sizes, limits, threads, seed, B9) rebuild the lab, dropping calls in\n" +
				"flight; the others (bugs, auto_complete, link rate, latency...) change it live. profile\n" +
				"changes it live too, unless it switches B9 (new2026 against seed or fix2025): B9 is how\n" +
				"svc_rdma_accept sizes the Send Queue, so that change rebuilds the lab.\n" +
				"NAME is one of:\n" + settingsHelp(),
			Example: "set page_size 8192\nset profile seed\nset B4 off\nset auto_complete on",
			Kernel:  []*trace.Func{kernel.SvcRdmaAccept},
			Args:    []Arg{{Name: "NAME", Optional: true, Complete: completeSettingNames}, {Name: "VALUE", Optional: true, Complete: completeSettingValue}},
			Run:     runSet,
		},
		{
			Name: "reset", Group: GroupSession,
			Usage:   "reset [--defaults]",
			Short:   "start over: a new lab, same settings (or defaults)",
			Example: "reset\nreset --defaults",
			Kernel:  []*trace.Func{kernel.SvcRdmaAccept},
			Flags:   []Flag{{Name: "defaults", Usage: "go back to the default settings too"}},
			Run:     runReset,
		},
		{
			Name: "trace", Group: GroupSession,
			Usage:   "trace [on|off]",
			Short:   "print every event (on), or only where runs stop",
			Example: "trace off\ncontinue\ntrace on",
			Args:    []Arg{{Name: "on|off", Optional: true, Complete: completeOnOff}},
			Run: func(c *Ctx, a Args, out io.Writer) error {
				return toggle(c, a, out, "trace", &c.S.trace)
			},
		},
		{
			Name: "hints", Group: GroupSession,
			Usage:   "hints [on|off]",
			Short:   "say what can happen next after each command",
			Example: "hints off",
			Args:    []Arg{{Name: "on|off", Optional: true, Complete: completeOnOff}},
			Run: func(c *Ctx, a Args, out io.Writer) error {
				return toggle(c, a, out, "hints", &c.S.hints)
			},
		},
		{
			Name: "source", Aliases: []string{"."}, Group: GroupSession,
			Usage: "source FILE",
			Short: "run the commands of a file (# starts a comment)",
			Long: "Each command is echoed after \"> \" before it runs; comment lines are printed. The file\n" +
				"stops at its first failing command, and the error names FILE:LINE.",
			Example: "source warmup.rdl",
			Args:    []Arg{{Name: "FILE", Paths: true}},
			Run: func(c *Ctx, a Args, out io.Writer) error {
				return c.sourceFile(a.Pos[0], out)
			},
		},
		{
			Name: "learn", Aliases: []string{"lesson"}, Group: GroupSession,
			Usage: "learn [LESSON]",
			Short: "list the lessons, or take one",
			Long: "Without LESSON, lists the lessons (✓ for those finished). At the terminal a\n" +
				"lesson is paced: each step narrates, then proposes a command; Enter runs it and\n" +
				"the lesson says whether what it expected happened. Any other command runs as\n" +
				"usual and the step waits. hint, skip, back (a fresh lab, the steps before run\n" +
				"again), again and quit steer the lesson. In a script the lesson runs through.\n" +
				"Every lesson starts from a fresh lab; rdmalab --lessons DIR adds your own.",
			Example: "learn\nlearn first-write",
			Args:    []Arg{{Name: "LESSON", Optional: true, Complete: completeLessons}},
			Run:     runLearn,
		},
		{
			Name: "history", Group: GroupSession,
			Usage: "history [N]",
			Short: "lines entered at the prompt; Ctrl-R searches them",
			Long: "Ctrl-R is not readline's incremental search (the line editor has none): type part of\n" +
				"a line first, then Ctrl-R puts the newest line of the history that contains it on the\n" +
				"prompt, and each Ctrl-R after it the next older one. Enter runs the line shown;\n" +
				"Ctrl-U or Ctrl-C clears it. On an empty line Ctrl-R walks back through every line,\n" +
				"as Up does.",
			Example: "history 5",
			Args:    []Arg{{Name: "N", Optional: true, Complete: completeCounts("10", "50")}},
			Run:     runHistory,
		},
	}
}

func toggle(c *Ctx, a Args, out io.Writer, what string, v *bool) error {
	if len(a.Pos) > 0 {
		b, err := engine.ParseOnOff(what, a.Pos[0])
		if err != nil {
			return err
		}
		*v = b
	}
	fmt.Fprintf(out, "%s %s\n", what, engine.OnOff(*v))
	return nil
}

func runEngine(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	if len(a.Pos) == 0 {
		printEngine(s, out)
		return nil
	}
	next := ""
	switch strings.ToLower(a.Pos[0]) {
	case "sim":
		if len(a.Pos) > 1 {
			return fmt.Errorf("engine sim takes no device, not %q", a.Pos[1])
		}
	case "ibv":
		if len(a.Pos) < 2 {
			devs, err := engine.Devices()
			if err != nil {
				return fmt.Errorf("engine ibv DEVICE: %w", err)
			}
			if len(devs) == 0 {
				return fmt.Errorf("engine ibv DEVICE: no RDMA device is present")
			}
			return fmt.Errorf("engine ibv DEVICE: which device? present: %s", shown(strings.Join(devs, ", ")))
		}
		if !engine.DeviceBuilt() {
			return fmt.Errorf("engine ibv %s: %w", shown(a.Pos[1]), engine.ErrDeviceNotBuilt)
		}
		next = "ibv:" + a.Pos[1]
		if len(a.Pos) > 2 {
			next += "," + a.Pos[2]
		}
		if _, _, err := engine.ParseEngine(next); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown engine %q (want sim, or ibv DEVICE [CLIENT_DEVICE])", a.Pos[0])
	}
	if next == s.engine {
		if next == "" {
			fmt.Fprintln(out, "engine sim (already in use)")
			return nil
		}
		printEngine(s, out)
		return nil
	}
	prev := s.engine
	s.engine = next
	if err := s.rebuild(s.set.Clone()); err != nil {
		s.engine = prev
		return err
	}
	fmt.Fprint(out, "a new lab: ")
	printEngine(s, out)
	return nil
}

// printEngine says which provider the lab runs on and, for a real device,
// where it differs from the sim.
func printEngine(s *Session, out io.Writer) {
	if s.lab.Can(engine.DeclaredStatus) {
		fmt.Fprintf(out, "engine sim: the embedded Soft-RoCE (rxe) model, deterministic (seed %d)\n", s.set.Seed)
		return
	}
	fmt.Fprintf(out, "engine %s: a real device through libibverbs\n", shown(s.lab.Set.Engine))
	for _, line := range s.lab.DeviceReport {
		fmt.Fprintf(out, "  %s\n", shown(line))
	}
}

func runSet(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	if len(a.Pos) == 0 {
		v, _ := settingsReportOf(s, s.lab.Snapshot(), "")
		return c.emit(v, out)
	}
	st, ok := engine.FindSetting(a.Pos[0])
	if !ok {
		var names []string
		for _, st := range engine.SettingsTable() {
			names = append(names, st.Name)
		}
		msg := fmt.Sprintf("unknown setting %q", a.Pos[0])
		if near := nearest.Word(engine.NormSettingName(a.Pos[0]), names); near != "" {
			return fmt.Errorf("%s: did you mean `set %s`?", msg, near)
		}
		return fmt.Errorf("%s (show settings lists them)", msg)
	}
	if len(a.Pos) == 1 {
		how := "rebuilds the lab"
		switch {
		case st.UnlessLive() != "":
			how = "changes the running lab,\n  unless " + st.UnlessLive() + ": then it rebuilds the lab"
		case st.Live():
			how = "changes the running lab"
		}
		fmt.Fprintf(out, "%s = %s\n  %s\n  accepts %s; changing it %s\n", st.Name, st.Get(s.set), st.Short, st.Accepts(s.set), how)
		return nil
	}
	return s.applySetting(st, a.Pos[1], out)
}

func runReset(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	set := s.set.Clone()
	if a.Has("defaults") {
		set = defaultSettings()
		set.Engine = s.engine
		var err error
		if set, err = engine.DeviceDefaults(set); err != nil {
			return err
		}
	}
	if err := s.rebuild(set); err != nil {
		return err
	}
	fmt.Fprintf(out, "a new lab: %s, %d nfsd thread(s), seed %d\n", set.Behaviour(), set.Threads, set.Seed)
	return nil
}

func runHistory(c *Ctx, a Args, out io.Writer) error {
	n := int64(20)
	if len(a.Pos) > 0 {
		var err error
		if n, err = engine.ParseInt("N", a.Pos[0], 1, 100_000); err != nil {
			return err
		}
	}
	h := c.S.hist
	start := max(len(h)-int(n), 0)
	for i := start; i < len(h); i++ {
		fmt.Fprintf(out, "%5d  %s\n", i+1, shown(h[i]))
	}
	if len(h) == 0 {
		fmt.Fprintln(out, "no history yet")
	}
	return nil
}
