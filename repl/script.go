package repl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// maxSourceDepth bounds nested `source` commands.
const maxSourceDepth = 16

// ScriptOptions control a scripted run (rdmalab run).
type ScriptOptions struct {
	KeepGoing bool      // run every command even after one fails
	JSON      bool      // one JSON record per command instead of a transcript
	Stderr    io.Writer // where FILE:LINE errors go
}

// Record is one command of a run --json transcript.
type Record struct {
	File    string        `json:"file"`
	Line    int           `json:"line"`
	Command string        `json:"command,omitempty"`
	Comment string        `json:"comment,omitempty"`
	OK      bool          `json:"ok"`
	Output  string        `json:"output,omitempty"`
	Events  []trace.Event `json:"events,omitempty"`
	Data    any           `json:"data,omitempty"`
	Error   string        `json:"error,omitempty"`
}

// RunScript runs the commands read from r, named name in errors, and
// writes the transcript to out. It returns how many commands failed; it
// stops at the first unless o.KeepGoing, and at quit. A line over 64 KiB
// fails without running. A recording (capture start) still running at
// the end is stopped and kept, and the transcript says so.
func (s *Session) RunScript(r io.Reader, name string, w io.Writer, o ScriptOptions) (failed int, err error) {
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	// The transcript is buffered; it is flushed before each error so the
	// two streams stay in order on a terminal.
	out := bufio.NewWriterSize(w, 64<<10)
	defer func() {
		if ferr := out.Flush(); ferr != nil && err == nil {
			err = fmt.Errorf("write transcript: %w", ferr)
		}
	}()
	defer func() {
		if o.JSON {
			s.finishRecording(o.Stderr) // the transcript holds JSON only
		} else {
			s.finishRecording(out)
		}
	}()
	sc := newLineScanner(r)
	enc := safe.NewJSONEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, long, rerr := sc.next()
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return failed, fmt.Errorf("%s: read line %d: %w", shown(name), sc.n+1, rerr)
		}
		pos := Pos{File: name, Line: sc.n}
		if s.leaving() {
			return failed, fmt.Errorf("%s: stopped by a signal", pos)
		}
		if long > 0 {
			failed++
			out.Flush()
			fmt.Fprintf(o.Stderr, "%s: %s\n", pos, tooLong(long))
			if !o.KeepGoing {
				return failed, nil
			}
			continue
		}
		text := strings.TrimSpace(line)
		if text == "" {
			continue
		}
		if o.JSON {
			rec := s.execRecord(line, pos)
			if err := enc.Encode(rec); err != nil {
				return failed, fmt.Errorf("write transcript: %w", err)
			}
			if rec.Comment == "" && !rec.OK {
				failed++
				out.Flush()
				fmt.Fprintf(o.Stderr, "%s: %s\n", pos, shownLines(rec.Error))
			}
		} else {
			if strings.HasPrefix(text, "#") {
				fmt.Fprintln(out, shown(line))
				continue
			}
			fmt.Fprintf(out, "> %s\n", shown(line))
			if err := s.Exec(line, pos, out); err != nil {
				failed++
				out.Flush()
				fmt.Fprintf(o.Stderr, "%s: %s\n", pos, shownLines(Explain(err)))
			}
		}
		if s.quit || (failed > 0 && !o.KeepGoing) {
			return failed, nil
		}
	}
	return failed, nil
}

// execRecord runs one line and returns its JSON record.
func (s *Session) execRecord(line string, pos Pos) Record {
	rec := Record{File: pos.File, Line: pos.Line}
	text := strings.TrimSpace(line)
	if strings.HasPrefix(text, "#") {
		rec.Comment, rec.OK = strings.TrimSpace(strings.TrimPrefix(text, "#")), true
		return rec
	}
	rec.Command = text
	var buf bytes.Buffer
	c := &Ctx{S: s, Pos: pos, out: &buf, JSON: true, collect: true}
	err := s.exec(c, line)
	rec.OK = err == nil
	if err != nil {
		rec.Error = Explain(err)
	}
	rec.Output, rec.Events = buf.String(), c.events
	if c.hasData {
		rec.Data = c.data
	}
	return rec
}

// tooDeepError is a source loop; it is reported once, not per level.
type tooDeepError struct{ msg string }

func (e *tooDeepError) Error() string { return e.msg }

// sourceFile runs a file's commands as `source` does: echoed, stopping at
// the first error, which names FILE:LINE.
func (c *Ctx) sourceFile(path string, out io.Writer) error {
	s := c.S
	if s.depth >= maxSourceDepth {
		return &tooDeepError{fmt.Sprintf("source nested %d deep: does %s source itself?", s.depth, shown(path))}
	}
	full, err := c.resolveFile(path)
	if err != nil {
		return err
	}
	f, err := os.Open(full)
	if err != nil {
		return nameErr(err, full, path)
	}
	defer f.Close()
	s.dirs = append(s.dirs, filepath.Dir(full))
	defer func() { s.dirs = s.dirs[:len(s.dirs)-1] }()
	return s.runLines(f, path, out)
}

// curDir is the directory relative FILE arguments are read from: the
// sourcing file's, or the session's.
func (s *Session) curDir() string {
	if n := len(s.dirs); n > 0 {
		return s.dirs[n-1]
	}
	if s.dir != "" {
		return s.dir
	}
	return "."
}

// runLines runs nested commands (source, learn) with the transcript
// format of a script, stopping at the first error.
func (s *Session) runLines(r io.Reader, name string, out io.Writer) error {
	s.depth++
	defer func() { s.depth-- }()
	sc := newLineScanner(r)
	for {
		line, long, err := sc.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		pos := Pos{File: name, Line: sc.n}
		switch {
		case err != nil:
			return fmt.Errorf("%s: read line %d: %w", shown(name), sc.n+1, err)
		case long > 0:
			return fmt.Errorf("%s: %s", pos, tooLong(long))
		}
		text := strings.TrimSpace(line)
		switch {
		case text == "":
			continue
		case strings.HasPrefix(text, "#"):
			fmt.Fprintln(out, shown(line))
			continue
		}
		if s.interrupt.Load() {
			return fmt.Errorf("%s: interrupted", pos)
		}
		fmt.Fprintf(out, "> %s\n", shown(line))
		if err := s.Exec(line, pos, out); err != nil {
			var deep *tooDeepError
			if errors.As(err, &deep) {
				return err // once, not once per level
			}
			return fmt.Errorf("%s: %s", pos, Explain(err))
		}
		if s.quit {
			return nil
		}
	}
}
