package repl

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/internal/nearest"
)

// Group says what a command is for; help lists commands by group, in the
// order of groups.
type Group string

// The command groups, in the order help lists them.
const (
	GroupSession Group = "session"
	GroupClient  Group = "client"
	GroupServer  Group = "server"
	GroupStep    Group = "stepping"
	GroupFaults  Group = "faults"
	GroupShow    Group = "inspection"
)

// groups lists the groups in help order, with their titles.
func groups() []struct {
	g     Group
	title string
} {
	return []struct {
		g     Group
		title string
	}{
		{GroupClient, "client: issue RPC calls over RPC-over-RDMA"},
		{GroupServer, "server: run the nfsd threads to a kernel function, deliver completions"},
		{GroupStep, "stepping: one event, one function, one thread at a time"},
		{GroupShow, "inspection: what the kernel objects hold now"},
		{GroupFaults, "faults: make things fail on purpose"},
		{GroupSession, "session: engine, settings, scripts"},
	}
}

// Suggestion is one completion candidate: the text that replaces the word
// being typed and a one-line description.
type Suggestion struct {
	Text string `json:"text"`
	Desc string `json:"description"`
}

// Completer lists the candidates for one argument, given the positional
// words before it; it reads only the session's last snapshot, never the
// engine.
type Completer func(s *Session, prev []string) []Suggestion

// Arg describes one positional argument.
type Arg struct {
	Name     string // as in the usage line: SIZE, THREAD
	Optional bool
	Variadic bool // this and every later word
	// Raw: the words keep their quotes and backslashes as typed (with
	// Variadic, the rest of the line: a display filter's "a b").
	Raw      bool
	Paths    bool      // a file name: Tab lists the file system
	Complete Completer `json:"-"`
}

// Flag describes one option; Value is the placeholder of its value, or ""
// for a switch.
type Flag struct {
	Name     string    `json:"name"`
	Value    string    `json:"value,omitempty"`
	Usage    string    `json:"usage"`
	Repeat   bool      `json:"repeat,omitempty"`
	Complete Completer `json:"-"`
}

// Command is one row of the command table: help, completion, scripts and
// JSON all read it.
type Command struct {
	Name    string        `json:"name"`
	Aliases []string      `json:"aliases,omitempty"`
	Group   Group         `json:"group"`
	Usage   string        `json:"usage"` // the whole usage line, name first
	Short   string        `json:"short"`
	Long    string        `json:"long,omitempty"`
	Example string        `json:"example,omitempty"`
	Kernel  []*trace.Func `json:"kernel,omitempty"` // the kernel functions it exercises
	Args    []Arg         `json:"-"`
	Flags   []Flag        `json:"flags,omitempty"`
	// Hint: after it succeeds, say what can happen next (commands that
	// move the lab).
	Hint bool `json:"-"`
	// OwnsLock: the command reaches the lab through the session's
	// engine.Shared itself (view), so it must not run with the lab locked.
	OwnsLock bool                                      `json:"-"`
	Run      func(c *Ctx, a Args, out io.Writer) error `json:"-"`
}

// Args is a parsed command line: positional words and options.
type Args struct {
	Pos   []string
	flags map[string][]string
}

// Has reports whether the option was given.
func (a Args) Has(name string) bool { _, ok := a.flags[name]; return ok }

// Flag is the last value given for the option.
func (a Args) Flag(name string) (string, bool) {
	v, ok := a.flags[name]
	if !ok || len(v) == 0 {
		return "", ok
	}
	return v[len(v)-1], true
}

// All is every value given for a repeatable option, in order.
func (a Args) All(name string) []string { return a.flags[name] }

// Ctx is what a command runs with: the session and where its output goes.
type Ctx struct {
	S    *Session
	JSON bool // show structured results as JSON (--json, or run --json)
	Pos  Pos  // where the command came from

	data      any           // the structured result, in run --json mode
	hasData   bool          // data was set
	events    []trace.Event // collected instead of printed, in run --json mode
	collect   bool
	keep      bool // collect events into kept even with trace off (lessons check them)
	kept      []trace.Event
	errnos    []errnoReturn // errnos functions returned during the command, once each
	lastErrno lastErrno
	noHint    bool // the command already said what to do next
	out       io.Writer
	jail      *lessonJail // a lesson's command: its files stay in the lesson's folder
}

// errnoReturn is a function that returned an errno; from is the function
// it passed the errno on from, "" when the errno started there.
type errnoReturn struct{ fn, errno, from string }

// lastErrno is the last errno return seen, to tell an errno passed up the
// stack from a new one.
type lastErrno struct {
	task, errno, origin string
	depth               int
}

// Pos names the origin of a command: a file and a line, or the terminal.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string {
	if p.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", shown(p.File), p.Line)
}

// usageError is a command used the wrong way; it prints the usage line.
type usageError struct {
	cmd *Command
	msg string
}

func (e *usageError) Error() string {
	return fmt.Sprintf("%s: %s\nusage: %s", e.cmd.Name, e.msg, e.cmd.Usage)
}

func usagef(cmd *Command, format string, a ...any) error {
	return &usageError{cmd: cmd, msg: fmt.Sprintf(format, a...)}
}

// flag finds an option by name.
func (c *Command) flag(name string) *Flag {
	for i := range c.Flags {
		if c.Flags[i].Name == name {
			return &c.Flags[i]
		}
	}
	return nil
}

// lineWords is the words of a command line for parse: the tokens' texts,
// or for a command with a Raw argument the positional words as typed, so
// that a display filter keeps its quoted strings whole.
func (c *Command) lineWords(line string, toks []Token) []string {
	w := words(toks)
	raw := false
	for _, a := range c.Args {
		raw = raw || a.Raw
	}
	if !raw {
		return w
	}
	for i := 1; i < len(toks); i++ {
		t := toks[i]
		if name, ok := strings.CutPrefix(t.Text, "--"); ok && line[t.Start:t.End] == t.Text {
			// An option, and its value when it takes one.
			if f := c.flag(name); f != nil && f.Value != "" && i+1 < len(toks) {
				i++
			}
			continue
		}
		w[i] = line[t.Start:t.End]
	}
	return w
}

// parse reads the words after the command name against the command's
// argument and option descriptions.
func (c *Command) parse(words []string) (Args, error) {
	a := Args{flags: map[string][]string{}}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "--") || w == "--" {
			if w == "--" {
				a.Pos = append(a.Pos, words[i+1:]...)
				break
			}
			a.Pos = append(a.Pos, w)
			continue
		}
		name, val, hasVal := strings.Cut(w[2:], "=")
		f := c.flag(name)
		if f == nil {
			msg := fmt.Sprintf("unknown option --%s", name)
			if near := nearest.Word(name, c.flagNames()); near != "" {
				msg += fmt.Sprintf(" (did you mean --%s?)", near)
			}
			return a, usagef(c, "%s", msg)
		}
		switch {
		case f.Value == "" && hasVal:
			return a, usagef(c, "--%s takes no value", name)
		case f.Value != "" && !hasVal:
			if i+1 >= len(words) {
				return a, usagef(c, "--%s needs a value (%s)", name, f.Value)
			}
			i++
			val = words[i]
		}
		if _, dup := a.flags[name]; dup && !f.Repeat {
			return a, usagef(c, "--%s given twice", name)
		}
		a.flags[name] = append(a.flags[name], val)
	}
	min, max := 0, 0
	for _, arg := range c.Args {
		if !arg.Optional && !arg.Variadic {
			min++
		}
		max++
		if arg.Variadic {
			max = -1
			break
		}
	}
	if len(a.Pos) < min {
		return a, usagef(c, "missing %s", c.Args[len(a.Pos)].Name)
	}
	if max >= 0 && len(a.Pos) > max {
		return a, usagef(c, "too many arguments: %q", strings.Join(a.Pos[max:], " "))
	}
	return a, nil
}

func (c *Command) flagNames() []string {
	out := make([]string, len(c.Flags))
	for i, f := range c.Flags {
		out[i] = f.Name
	}
	return out
}

// jsonFlag is the --json option shared by the inspection commands.
func jsonFlag() Flag {
	return Flag{Name: "json", Usage: "print the result as JSON (field names as in snap.Snapshot)"}
}
