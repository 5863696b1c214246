package repl

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/lessons"
	"github.com/rdmalab/rdmalab/viz/web"
)

// Options configure a Session.
type Options struct {
	// Settings the first lab is built with; nil means engine.DefaultSettings.
	Settings *engine.Settings
	// LessonDirs are trainers' lesson folders, offered beside the shipped
	// lessons (a later lesson with a shipped lesson's name replaces it).
	LessonDirs []string
	// ProgressFile records the lessons finished; "" keeps no record.
	ProgressFile string
	// Warn receives what the session has to say before any command (a
	// lessons folder that cannot be read); nil discards it.
	Warn io.Writer
	// Dir is the directory relative FILE arguments are read from; "" is the
	// working directory.
	Dir string
	// Engine is the provider every lab of the session uses: "" or "sim",
	// or "ibv:DEVICE[,CLIENT_DEVICE]" (engine.ParseEngine).
	Engine string
}

// Session is one REPL session: the lab it drives, the REPL's own switches,
// and the cached snapshot the completer reads.
type Session struct {
	lab    *engine.Lab
	shared *engine.Shared // every command runs through it, so views can read the lab safely
	web    *web.Server    // the class page (serve), or nil
	webSrc *liveSource    // what it reads (cmd_serve.go)
	tty    bool           // the session runs at a terminal (view is possible)
	// leave is done when the session must end now (SIGTERM, SIGHUP):
	// a view open at the time closes.
	leave    context.Context
	leaveNow context.CancelFunc
	set      engine.Settings // what the next rebuild uses (== lab.Set after one)
	engine   string          // the provider every rebuild uses (Options.Engine)
	trace    bool
	hints    bool
	cmds     []*Command
	byName   map[string]*Command
	// catalog is read on first use (lessonCatalog) from lessonDirs;
	// lessonWarn hears a fault then.
	catalog    *lessons.Catalog
	lessonDirs []lessons.Dir
	lessonWarn io.Writer
	progress   *lessons.Progress
	lesson     *lessonRun // a paced lesson being taken, or nil
	dir        string

	// What the completer knows of the lab, refreshed after each command.
	snap     snap.Snapshot
	segs     []Suggestion // client segments, "XID/N"
	funcList []string     // function names seen in events, sorted
	funcs    map[string]bool
	hist     []string // lines entered at the terminal, oldest first

	cur  *Ctx   // the command running, for the event sink
	line []byte // onEvent's line, reused
	// pendingNarr builds lesson text for the views, set while a command
	// ran.
	pendingNarr func() string
	// closing: the views show how the last paced lesson ended, until the
	// next command.
	closing   bool
	quit      bool
	depth     int      // source nesting
	dirs      []string // directories of the files being sourced
	interrupt atomic.Bool
	tmp       leftovers // what a signal must not leave behind
	tmpRoot   string    // where lesson folders are made; "": os.TempDir()

	capture captureState // cmd_capture.go

	// pendingLesson is pendingNarr for the lesson's state (SetLesson):
	// set, it points at the state to hand over, nil included.
	pendingLesson **snap.Lesson
	// locked: a command runs with the lab locked against the views
	// (runLocked); readLab then needs no lock of its own.
	locked bool
}

// NewSession builds a lab and a session around it.
func NewSession(o Options) (*Session, error) {
	set := engine.DefaultSettings()
	if o.Settings != nil {
		set = *o.Settings
	}
	s := &Session{trace: true, hints: true, dir: o.Dir, funcs: map[string]bool{}, engine: o.Engine}
	s.leave, s.leaveNow = context.WithCancel(context.Background())
	warn := o.Warn
	if warn == nil {
		warn = io.Discard
	}
	s.cmds = commandTable()
	s.byName = map[string]*Command{}
	for _, c := range s.cmds {
		s.byName[c.Name] = c
		for _, a := range c.Aliases {
			s.byName[a] = c
		}
	}
	s.loadLessons(o.LessonDirs, warn)
	var err error
	if s.progress, err = lessons.LoadProgress(o.ProgressFile); err != nil {
		fmt.Fprintf(warn, "rdmalab: lesson progress: %s\n", shown(err.Error()))
	}
	if err := s.rebuild(set); err != nil {
		return nil, err
	}
	s.shared = engine.NewShared(s.lab)
	s.Refresh()
	return s, nil
}

// Close ends the lab.
func (s *Session) Close() {
	s.leaveNow()
	s.stopServing()
	if s.lesson != nil {
		s.lesson.end(s)
		s.lesson = nil
	}
	s.closeCaptures()
	if s.lab != nil {
		s.lab.Close()
	}
}

// Lab is the engine the session drives.
func (s *Session) Lab() *engine.Lab { return s.lab }

// Commands is the command table, in help order.
func (s *Session) Commands() []*Command { return s.cmds }

// Quitting reports whether a quit command ran.
func (s *Session) Quitting() bool { return s.quit }

// Interrupt asks the running command to stop at its next event; a signal
// handler may call it from any goroutine.
func (s *Session) Interrupt() { s.interrupt.Store(true) }

// Leave ends what keeps the terminal (an open view): the session is
// ending on a signal.
func (s *Session) Leave() { s.leaveNow() }

// leaving reports whether Leave was called: what runs a series of
// commands (a lesson's quiet steps, going back) stops.
func (s *Session) leaving() bool { return s.leave.Err() != nil }

// Refresh takes the snapshot the completer reads. The interactive loop
// calls it after each command; scripts do not need it.
func (s *Session) Refresh() { s.readLab(s.refresh) }

func (s *Session) refresh() {
	s.snap = s.lab.Snapshot()
	s.segs = nil
	for _, k := range s.lab.Calls(100) {
		cc := chunksOf(k)
		for _, sg := range cc.Segments {
			s.segs = append(s.segs, Suggestion{sg.ID, fmt.Sprintf("%s of %s, %d bytes", sg.Kind, cc.Label, sg.Length)})
		}
	}
	s.funcList = s.seenFuncs()
}

// rebuild replaces the lab with one built from set.
func (s *Session) rebuild(set engine.Settings) error {
	// The provider belongs to the session: a reset or a lesson's fresh
	// lab keeps it.
	newEngine := s.lab != nil && s.lab.Set.Engine != s.engine
	set.Engine = s.engine
	if newEngine || s.lab == nil && s.engine != "" && s.engine != "sim" {
		// A new engine starts from its device's own settings.
		var err error
		if set, err = engine.DeviceDefaults(set); err != nil {
			return fmt.Errorf("build the lab: %w", err)
		}
	}
	lab, err := engine.New(set)
	if err != nil {
		return fmt.Errorf("build the lab: %w", err)
	}
	if s.lab != nil {
		s.lab.Close()
	}
	s.lab, s.set = lab, set
	// The session reads calls through the client's lists only, so the
	// client may reuse the buffers of calls it has summarized.
	lab.RecycleCalls()
	lab.Subscribe(s.onEvent)
	return nil
}

// onEvent is the lab's event sink: it prints (or collects) each event of
// the running command and notes the errnos functions return.
func (s *Session) onEvent(ev trace.Event) {
	if ev.Func != "" {
		s.funcs[ev.Func] = true
	}
	c := s.cur
	if c == nil {
		return
	}
	if ev.Kind == trace.Return && ev.Err != "" {
		c.noteErrno(ev)
	}
	if c.keep {
		c.kept = append(c.kept, ev)
	}
	if !s.trace {
		return
	}
	if c.collect {
		c.events = append(c.events, ev)
		return
	}
	s.line = append(summariseEvent(ev.Append(s.line[:0])), '\n')
	c.out.Write(s.line)
}

// seenFuncs lists the function names events have named so far.
func (s *Session) seenFuncs() []string {
	out := make([]string, 0, len(s.funcs))
	for f := range s.funcs {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// lookup finds a command by name or alias.
func (s *Session) lookup(name string) *Command { return s.byName[name] }

// Exec runs one command line and writes its transcript to out. It returns
// the command's error; the caller prints it (with the line's position).
func (s *Session) Exec(line string, pos Pos, out io.Writer) error {
	return s.exec(&Ctx{S: s, Pos: pos, out: out}, line)
}

func (s *Session) exec(c *Ctx, line string) (err error) {
	toks, err := Tokenize(line)
	if err != nil {
		return err
	}
	if len(toks) == 0 {
		return nil
	}
	w := words(toks)
	cmd := s.lookup(w[0])
	if cmd == nil {
		return s.unknownCommand(w)
	}
	a, err := cmd.parse(cmd.lineWords(line, toks)[1:])
	if err != nil {
		return err
	}
	if a.Has("json") {
		c.JSON = true
	}
	prev := s.cur
	s.cur = c
	if prev == nil && !s.leaving() {
		// A new command from the user. Once the session is ending the
		// interrupt stays: a lesson's next steps must not run on.
		s.interrupt.Store(false)
		if s.closing {
			s.closing = false
			s.setNarration(nil)
		}
	}
	defer func() {
		s.cur = prev
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: internal error: %v (the session goes on; please report this)\n%s", cmd.Name, r, debug.Stack())
		}
	}()
	err = s.runLocked(cmd, prev == nil, func() error { return cmd.Run(c, a, c.out) })
	if prev == nil {
		s.publishPackets()
	}
	if prev == nil && s.pendingLesson != nil && s.shared != nil {
		s.shared.SetLesson(*s.pendingLesson)
		s.pendingLesson = nil
	}
	if prev == nil && s.pendingNarr != nil && s.shared != nil {
		s.shared.SetNarrationFunc(s.pendingNarr)
		s.pendingNarr = nil
	}
	if err != nil && !strings.HasPrefix(err.Error(), cmd.Name+":") && !strings.HasPrefix(err.Error(), cmd.Name+" ") {
		err = fmt.Errorf("%s: %w", cmd.Name, err)
	}
	s.explainErrnos(c)
	if err == nil && cmd.Hint && !c.noHint {
		s.printHint(c.out)
	}
	return err
}

// runLocked runs a command with the lab locked for the views (the
// outermost command only: source nests), and hands a rebuilt lab to them.
func (s *Session) runLocked(cmd *Command, outer bool, run func() error) error {
	if !outer || s.shared == nil || cmd.OwnsLock {
		return run()
	}
	old := s.lab
	err := s.shared.Do(func(*engine.Lab) error {
		s.locked = true
		defer func() { s.locked = false }()
		return run()
	})
	if s.lab != old {
		s.shared.Replace(s.lab)
	}
	return err
}

// Shared is the session's lab as views and the publisher read it.
func (s *Session) Shared() *engine.Shared { return s.shared }

// noteErrno records a function returning an errno, once per function and
// errno. A caller returning the errno its callee just returned passes it
// on: the note names where it came from rather than guess a meaning.
func (c *Ctx) noteErrno(ev trace.Event) {
	r := errnoReturn{fn: ev.Func, errno: ev.Err}
	if l := c.lastErrno; l.task == ev.Task && l.errno == ev.Err && ev.Depth < l.depth {
		r.from = l.origin
	}
	origin := ev.Func
	if r.from != "" {
		origin = r.from
	}
	c.lastErrno = lastErrno{task: ev.Task, errno: ev.Err, depth: ev.Depth, origin: origin}
	if !slices.ContainsFunc(c.errnos, func(x errnoReturn) bool { return x.fn == r.fn && x.errno == r.errno }) {
		c.errnos = append(c.errnos, r)
	}
}

// funcErrnoMeanings are what an errno means from one function, where the
// errno's general svcrdma meaning would mislead.
var funcErrnoMeanings = map[[2]string]string{
	{kernel.SvcRdmaPostChunkCtxt.Name(), "EINVAL"}: "the chunk needs more Send Queue entries (cc_sqecount) than the SQ has (sc_sq_depth), so it can never be posted",
}

// explainErrnos says once what each errno returned during the command
// means.
func (s *Session) explainErrnos(c *Ctx) {
	for _, r := range c.errnos {
		e, ok := engine.ErrnoByName(r.errno)
		switch {
		case !ok:
		case r.from != "":
			fmt.Fprintf(c.out, "note: %s returned -%s, passed on from %s\n", r.fn, r.errno, r.from)
		default:
			meaning := e.Meaning()
			if m, ok := funcErrnoMeanings[[2]string{r.fn, r.errno}]; ok {
				meaning = m
			}
			fmt.Fprintf(c.out, "note: %s returned -%s: %s\n", r.fn, r.errno, meaning)
		}
	}
	c.errnos, c.lastErrno = nil, lastErrno{}
}
