package main

import (
	"bytes"
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/cli"
	"github.com/rdmalab/rdmalab/repl"
)

// runArgs runs rdmalab with args and no stdin.
func runArgs(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, nil, &out, &errb)
	return code, out.String(), errb.String()
}

// TestCommandTable checks every row of the table: -h and --help print its
// usage and exit 0, help NAME prints the same, a bogus flag exits 2 with
// the usage, and the usage documents every flag.
func TestCommandTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands(setup{}) {
		name := c.Name()
		t.Run(name, func(t *testing.T) {
			if name == "" || seen[name] {
				t.Fatalf("usage line %q: no name, or one already taken", c.UsageLine)
			}
			seen[name] = true
			usage := c.usage()
			if !strings.HasPrefix(usage, "usage: rdmalab "+name+" ") && usage != "usage: rdmalab "+name+"\n" {
				t.Errorf("usage starts %.40q", usage)
			}
			if c.Short == "" || strings.Contains(c.Short, "\n") || strings.TrimSpace(c.Long) == "" {
				t.Errorf("short %q, long %q", c.Short, c.Long)
			}
			for _, h := range []string{"-h", "--help", "-help"} {
				code, out, errs := runArgs(name, h)
				if code != exitOK || out != usage || errs != "" {
					t.Errorf("%s %s: exit %d, stderr %q, stdout\n%s", name, h, code, errs, out)
				}
			}
			if code, out, errs := runArgs("help", name); code != exitOK || out != usage || errs != "" {
				t.Errorf("help %s: exit %d, stderr %q, stdout\n%s", name, code, errs, out)
			}
			code, out, errs := runArgs(name, "--bogus-flag")
			if code != exitUsage || out != "" ||
				errs != "rdmalab "+name+": flag provided but not defined: -bogus-flag\n"+usage {
				t.Errorf("%s --bogus-flag: exit %d, stdout %q, stderr\n%s", name, code, out, errs)
			}
			c.Flag.VisitAll(func(f *flag.Flag) {
				documented := regexp.MustCompile(`(?m)^ +--?` + regexp.QuoteMeta(f.Name) + `\b|, --?` + regexp.QuoteMeta(f.Name) + `\b`)
				if !documented.MatchString(usage) {
					t.Errorf("the usage does not document -%s at the start of a line", f.Name)
				}
			})
		})
	}
}

// TestHelpSummary: rdmalab help, -h and --help print the summary, which
// lists every command's usage line in table order with the exit statuses.
func TestHelpSummary(t *testing.T) {
	_, want, _ := runArgs("help")
	for _, args := range [][]string{{"-h"}, {"--help"}} {
		if code, out, errs := runArgs(args...); code != exitOK || out != want || errs != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout\n%s", args, code, errs, out)
		}
	}
	at := 0
	for _, c := range commands(setup{}) {
		i := strings.Index(want[at:], "\n  "+c.UsageLine+" ")
		if j := strings.Index(want[at:], "\n  "+c.UsageLine+"\n"); i < 0 || (j >= 0 && j < i) {
			i = j
		}
		if i < 0 {
			t.Fatalf("the summary lacks %q after byte %d:\n%s", c.UsageLine, at, want)
		}
		at += i + 1
	}
	if !strings.Contains(want, exitStatusHelp) {
		t.Errorf("the summary lacks the exit statuses:\n%s", want)
	}
}

// TestCommandLineErrors: what rdmalab says, and exits with, when called
// the wrong way outside any one command's flags.
func TestCommandLineErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"bogus"}, `rdmalab: unknown subcommand "bogus"`},
		{[]string{"--bogus"}, "rdmalab: flag provided but not defined: -bogus"},
		{[]string{"--lessons"}, "rdmalab: flag needs an argument: -lessons"},
		{[]string{"--lessons", "x", "learn"}, "give it after: rdmalab learn --lessons DIR"},
		{[]string{"--lessons", "x", "decode"}, "rdmalab decode takes none"},
		{[]string{"help", "bogus"}, `rdmalab help: unknown command "bogus"`},
		{[]string{"help", "run", "view"}, "rdmalab help: one command at a time, not 2"},
		{[]string{"view", "x"}, `rdmalab view: unknown argument "x"`},
		{[]string{"learn", "a", "b"}, "rdmalab learn: one lesson at a time, not 2"},
		{[]string{"lesson"}, "rdmalab lesson: check what?"},
		{[]string{"lesson", "run"}, `rdmalab lesson: unknown lesson command "run"`},
	} {
		code, out, errs := runArgs(tc.args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, tc.err) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, out, errs, exitUsage, tc.err)
		}
	}
}

// --engine reaches the sessions a command starts as a value: the
// environment is an input, read once, and never written (it was set with
// os.Setenv for the sessions to read back). --engine wins over it.
func TestEngineIsAValue(t *testing.T) {
	const notBuilt = "built without the ibv provider"
	for _, tc := range []struct {
		env  string
		args []string
		code int
		out  string // in stdout, or stderr when the code is not exitOK
	}{
		{"", []string{"--engine", "sim", "run", "-"}, exitOK, "engine sim:"},
		{"", []string{"--engine", "ibv:nosuch", "run", "-"}, exitRuntime, notBuilt},
		{"ibv:nosuch", []string{"run", "-"}, exitRuntime, notBuilt},
		{"ibv:nosuch", []string{"--engine", "sim", "run", "-"}, exitOK, "engine sim:"},
		{"ibv:nosuch", []string{"--engine", "sim"}, exitOK, "engine sim:"},
		{"bogus", []string{"run", "-"}, exitUsage, `engine "bogus"`},
		{"", []string{"--engine", "bogus", "run", "-"}, exitUsage, `engine "bogus"`},
	} {
		t.Setenv(engineEnv, tc.env)
		var out, errb bytes.Buffer
		code := run(tc.args, strings.NewReader("engine\n"), &out, &errb)
		got := out.String()
		if code != exitOK {
			got = errb.String()
		}
		if code != tc.code || !strings.Contains(got, tc.out) {
			t.Errorf("%s=%s rdmalab %q: exit %d\n%s%s\nwant %d, %q", engineEnv, tc.env, tc.args, code, out.String(), errb.String(), tc.code, tc.out)
		}
		if v := os.Getenv(engineEnv); v != tc.env {
			t.Errorf("rdmalab %q left %s=%q, was %q", tc.args, engineEnv, v, tc.env)
		}
	}
}

// The options both front ends share are cli's: the command line's flags
// and the REPL's table hold the same name, placeholder and usage.
func TestSharedOptionsAreCLIs(t *testing.T) {
	replay := []cli.Option{cli.MaxExpand(), cli.QP(), cli.ReplayRPC(), cli.ReplayEvents(), cli.ReplayJSON()}
	line := map[string][]cli.Option{"replay": replay, "decode": {cli.MaxExpand()}, "view": {cli.MaxExpand()}}
	cmds := commands(setup{})
	for name, opts := range line {
		for _, o := range opts {
			f := lookup(cmds, name).Flag.Lookup(o.Name)
			if f == nil || f.Usage != o.Usage {
				t.Errorf("rdmalab %s --%s: %+v, want cli's %+v", name, o.Name, f, o)
			}
		}
	}
	s, err := repl.NewSession(repl.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	shell := map[string][]cli.Option{"replay": replay, "capture": {cli.MaxExpand()}}
	for _, c := range s.Commands() {
		for _, o := range shell[c.Name] {
			if !slices.ContainsFunc(c.Flags, func(f repl.Flag) bool { return f.Name == o.Name && f.Value == o.Value && f.Usage == o.Usage }) {
				t.Errorf("the REPL's %s --%s: %+v, want cli's %+v", c.Name, o.Name, c.Flags, o)
			}
		}
		delete(shell, c.Name)
	}
	if len(shell) > 0 {
		t.Errorf("the REPL has no %v", shell)
	}
}
