package lessons

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits on a lesson file, which is untrusted input: a trainer's file or
// one passed around a class.
const (
	MaxFileSize = 1 << 20 // bytes
	MaxLineLen  = 4096    // bytes
	MaxSteps    = 1000
	// MaxChecks bounds the expect lines after one command: each is
	// weighed against all the command did.
	MaxChecks = 100
)

// Validator checks one command line of a lesson before anything runs: is
// it a command a lesson may use, with arguments that parse? It returns
// the 1-based column of the fault with the error, or 0 when the whole
// line is at fault.
type Validator func(command string) (col int, err error)

// Parse reads a lesson file. file names it in messages; validate, when
// not nil, vets every command. The first fault ends the parse with an
// *Error at its line and column.
func Parse(file string, data []byte, validate Validator) (*Lesson, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{Pos{file, 0, 0}, fmt.Sprintf("%d bytes: a lesson file is at most %d", len(data), MaxFileSize)}
	}
	p := &parser{file: file, l: &Lesson{File: file}, validate: validate}
	p.lines = splitLines(data)
	if err := p.run(); err != nil {
		return nil, err
	}
	return p.l, nil
}

type parser struct {
	file     string
	lines    []string
	n        int // index of the line being read; its number is n+1
	l        *Lesson
	validate Validator

	prose   strings.Builder // narration waiting for the next step
	comment strings.Builder // "# ..." lines inside a block, for the next command
	// hint gathers the last step's hint lines, joined by blanks; it is
	// the step's Hint once the next step starts or the file ends.
	hint    strings.Builder
	seenCmd bool
}

func splitLines(data []byte) []string {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func (p *parser) errf(line, col int, format string, a ...any) error {
	return &Error{Pos{p.file, line, col}, fmt.Sprintf(format, a...)}
}

func (p *parser) run() error {
	for i, ln := range p.lines {
		if len(ln) > MaxLineLen {
			return p.errf(i+1, 0, "line of %d bytes: at most %d", len(ln), MaxLineLen)
		}
		if !utf8.ValidString(ln) {
			return p.errf(i+1, 0, "not UTF-8 text")
		}
		for j, r := range ln {
			if r < 0x20 && r != '\t' || r == 0x7f {
				return p.errf(i+1, j+1, "control character %U", r)
			}
		}
	}
	if err := p.frontMatter(); err != nil {
		return err
	}
	for p.n < len(p.lines) {
		ln := p.lines[p.n]
		if fence, info, ok := openFence(ln); ok {
			if err := p.block(fence, info); err != nil {
				return err
			}
			continue
		}
		p.addProse(ln)
		p.n++
	}
	if len(p.l.Steps) == 0 {
		return p.errf(len(p.lines), 0, "no ```rdmalab block: a lesson has at least one command")
	}
	p.endStep()
	p.l.Outro = strings.TrimSpace(p.prose.String())
	return nil
}

// frontMatter reads the block between the two --- lines at the top.
func (p *parser) frontMatter() error {
	if len(p.lines) == 0 || strings.TrimSpace(p.lines[0]) != "---" {
		return p.errf(1, 1, "a lesson starts with front matter: a --- line, name:, title:, summary:, level:, then ---")
	}
	seen := map[string]int{}
	inSettings := false
	for p.n = 1; p.n < len(p.lines); p.n++ {
		ln := p.lines[p.n]
		line := p.n + 1
		if strings.TrimSpace(ln) == "---" {
			p.n++
			return p.checkFront(seen)
		}
		if strings.TrimSpace(ln) == "" || strings.HasPrefix(strings.TrimSpace(ln), "#") {
			continue
		}
		indented := ln[0] == ' ' || ln[0] == '\t'
		key, val, ok := strings.Cut(strings.TrimSpace(ln), ":")
		if !ok {
			return p.errf(line, 1, "want key: value in the front matter")
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		col := strings.Index(ln, strings.TrimSpace(ln)) + 1
		if indented {
			if !inSettings {
				return p.errf(line, col, "an indented line belongs under settings:")
			}
			if val == "" {
				return p.errf(line, col+len(key)+1, "setting %s has no value", key)
			}
			p.l.Settings = append(p.l.Settings, Setting{Name: key, Value: unquote(val), Line: line})
			continue
		}
		inSettings = false
		if prev, dup := seen[key]; dup {
			return p.errf(line, col, "%s: given twice (first on line %d)", key, prev)
		}
		seen[key] = line
		val = unquote(val)
		switch key {
		case "name":
			if !validName(val) {
				return p.errf(line, col+len(key)+2, "name %q: use lower-case letters, digits and '-'", val)
			}
			p.l.Name = val
		case "title":
			p.l.Title = val
		case "summary":
			p.l.Summary = val
		case "level":
			if !contains(Levels, val) {
				return p.errf(line, col+len(key)+2, "level %q: want one of %s", val, strings.Join(Levels, ", "))
			}
			p.l.Level = val
		case "profile":
			p.l.Settings = append([]Setting{{Name: "profile", Value: val, Line: line}}, p.l.Settings...)
		case "settings":
			if val != "" {
				return p.errf(line, col+len(key)+2, "settings: takes indented name: value lines below it")
			}
			inSettings = true
		case "keep-lab":
			if val == "" {
				return p.errf(line, col, "keep-lab: say why the lesson does not start from a fresh lab")
			}
			p.l.KeepLab = val
		case "engines":
			for _, e := range strings.Fields(val) {
				if !contains(Engines, e) {
					return p.errf(line, col+len(key)+2, "engine %q: want %s", e, strings.Join(Engines, " or "))
				}
				if !contains(p.l.Engines, e) {
					p.l.Engines = append(p.l.Engines, e)
				}
			}
			if len(p.l.Engines) == 0 {
				return p.errf(line, col, "engines: name the engines the lesson runs on (%s)", strings.Join(Engines, ", "))
			}
		case "files":
			p.l.FilesLine = line
			for _, f := range strings.Fields(val) {
				if !validFile(f) {
					return p.errf(line, col+len(key)+2, "file %q: a plain file name shipped beside the lesson", f)
				}
				p.l.Files = append(p.l.Files, f)
			}
		default:
			return p.errf(line, col, "unknown front matter key %q (name, title, summary, level, profile, settings, keep-lab, files, engines)", key)
		}
	}
	return p.errf(len(p.lines), 0, "the front matter has no closing --- line")
}

func (p *parser) checkFront(seen map[string]int) error {
	for _, k := range []string{"name", "title", "summary", "level"} {
		if _, ok := seen[k]; !ok {
			return p.errf(p.n, 0, "front matter: %s: is missing", k)
		}
	}
	if p.l.KeepLab != "" && len(p.l.Settings) > 0 {
		return p.errf(seen["keep-lab"], 0, "keep-lab: a lesson that keeps the lab cannot also set its settings")
	}
	for _, s := range p.l.Settings {
		if p.validate != nil {
			if col, err := p.validate("set " + s.Name + " " + s.Value); err != nil {
				_ = col
				return p.errf(s.Line, 0, "setting %s: %v", s.Name, err)
			}
		}
	}
	return nil
}

// openFence reports whether ln opens a fenced code block, with its fence
// (``` or ~~~, possibly longer) and info string.
func openFence(ln string) (fence, info string, ok bool) {
	t := strings.TrimLeft(ln, " ")
	if len(ln)-len(t) > 3 {
		return "", "", false
	}
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n >= 3 {
			return t[:n], strings.TrimSpace(t[n:]), true
		}
	}
	return "", "", false
}

func isClose(ln, fence string) bool {
	t := strings.TrimSpace(ln)
	return strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == ""
}

func (p *parser) addProse(ln string) {
	if strings.HasPrefix(strings.TrimSpace(ln), "<!--") {
		return
	}
	p.prose.WriteString(ln)
	p.prose.WriteByte('\n')
}

// block reads one fenced block: an rdmalab block holds steps, any other
// block is narration shown as it is.
func (p *parser) block(fence, info string) error {
	open := p.n + 1
	words := strings.Fields(info)
	lang := ""
	if len(words) > 0 {
		lang = words[0]
	}
	p.n++
	if lang != "rdmalab" {
		p.addProse(p.lines[open-1])
		for ; p.n < len(p.lines); p.n++ {
			p.addProse(p.lines[p.n])
			if isClose(p.lines[p.n], fence) {
				p.n++
				return nil
			}
		}
		return p.errf(open, 1, "this %s block is never closed", fence)
	}
	quiet := false
	for _, w := range words[1:] {
		if w != "quiet" {
			return p.errf(open, strings.Index(p.lines[open-1], w)+1, "unknown block option %q (quiet)", w)
		}
		quiet = true
	}
	for ; p.n < len(p.lines); p.n++ {
		ln := p.lines[p.n]
		line := p.n + 1
		if isClose(ln, fence) {
			p.n++
			return nil
		}
		t := strings.TrimSpace(ln)
		col := strings.Index(ln, t) + 1
		switch {
		case t == "":
		case strings.HasPrefix(t, "#"):
			p.comment.WriteString(strings.TrimSpace(strings.TrimPrefix(t, "#")))
			p.comment.WriteByte('\n')
		case t == "expect" || strings.HasPrefix(t, "expect "):
			st := p.lastStep()
			if st == nil {
				return p.errf(line, col, "expect before any command: a check follows the command it checks")
			}
			if len(st.Checks) >= MaxChecks {
				return p.errf(line, col, "more than %d checks after one command", MaxChecks)
			}
			c, err := parseCheck(strings.TrimSpace(strings.TrimPrefix(t, "expect")), Pos{p.file, line, col + len("expect ")})
			if err != nil {
				return err
			}
			st.Checks = append(st.Checks, c)
		case t == "hint" || strings.HasPrefix(t, "hint "):
			st := p.lastStep()
			if st == nil {
				return p.errf(line, col, "hint before any command: a hint follows the checks it explains")
			}
			h := strings.TrimSpace(strings.TrimPrefix(t, "hint"))
			if h == "" {
				return p.errf(line, col, "an empty hint")
			}
			// Gathered, not added to st.Hint line by line: that copied
			// the hint so far at each line, quadratic in the lines.
			if p.hint.Len() > 0 {
				p.hint.WriteByte(' ')
			}
			p.hint.WriteString(h)
		default:
			if len(p.l.Steps) >= MaxSteps {
				return p.errf(line, col, "more than %d steps", MaxSteps)
			}
			if p.validate != nil {
				if c, err := p.validate(t); err != nil {
					if c > 0 {
						c += col - 1
					}
					return p.errf(line, c, "%v", err)
				}
			}
			narr := strings.TrimSpace(p.prose.String())
			if cm := strings.TrimSpace(p.comment.String()); cm != "" {
				if narr != "" {
					narr += "\n\n"
				}
				narr += cm
			}
			p.endStep()
			p.seenCmd = true
			p.prose.Reset()
			p.comment.Reset()
			p.l.Steps = append(p.l.Steps, Step{Narration: narr, Command: t, Line: line, Col: col, Quiet: quiet})
		}
	}
	return p.errf(open, 1, "this ```rdmalab block is never closed")
}

// endStep gives the last step the hint gathered for it.
func (p *parser) endStep() {
	if p.hint.Len() > 0 {
		p.l.Steps[len(p.l.Steps)-1].Hint = p.hint.String()
		p.hint.Reset()
	}
}

func (p *parser) lastStep() *Step {
	if len(p.l.Steps) == 0 || !p.seenCmd {
		return nil
	}
	return &p.l.Steps[len(p.l.Steps)-1]
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func validFile(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '.' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
