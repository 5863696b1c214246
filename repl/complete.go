package repl

import (
	"strings"
)

// Complete lists what may replace the word being typed at the end of
// before (the line up to the cursor). The word ends at the last blank or
// '=' (the separators the prompt replaces up to). It reads the session's
// last snapshot and never steps the engine. A line over 64 KiB gets
// nothing: it will be refused, and the completer runs at every key.
func (s *Session) Complete(before string) []Suggestion {
	if len(before) > maxLine {
		return nil
	}
	toks, _ := Tokenize(before)
	if commentStarted(before) {
		return nil
	}
	cur := ""
	if before != "" && !strings.ContainsAny(before[len(before)-1:], " \t") && len(toks) > 0 {
		cur = toks[len(toks)-1].Text
		toks = toks[:len(toks)-1]
	}
	if len(toks) == 0 {
		return filter(s.commandSuggestions(), cur)
	}
	cmd := s.lookup(toks[0].Text)
	if cmd == nil {
		return nil
	}
	w := words(toks[1:])
	// --name=value: complete the value after '='.
	if strings.HasPrefix(cur, "--") {
		if name, frag, ok := strings.Cut(cur[2:], "="); ok {
			if f := cmd.flag(name); f != nil && f.Complete != nil {
				return filter(f.Complete(s, nil), frag)
			}
			return nil
		}
		return filter(flagSuggestions(cmd, w), cur)
	}
	// The value of an option given as --name value.
	if n := len(w); n > 0 && strings.HasPrefix(w[n-1], "--") && !strings.Contains(w[n-1], "=") {
		if f := cmd.flag(w[n-1][2:]); f != nil && f.Value != "" {
			if f.Complete == nil {
				return nil
			}
			return filter(f.Complete(s, nil), cur)
		}
	}
	var pos []string
	for i := 0; i < len(w); i++ {
		if strings.HasPrefix(w[i], "--") {
			if f := cmd.flag(strings.TrimPrefix(w[i], "--")); f != nil && f.Value != "" && !strings.Contains(w[i], "=") {
				i++
			}
			continue
		}
		pos = append(pos, w[i])
	}
	arg, ok := argAt(cmd, len(pos))
	var out []Suggestion
	if ok && arg.Paths {
		out = filter(pathsFor(s.dir, cur), cur)
	} else if ok && arg.Complete != nil {
		out = filter(arg.Complete(s, pos), cur)
	}
	if cur == "" && len(cmd.Flags) > 0 {
		out = append(out, flagSuggestions(cmd, w)...)
	}
	return out
}

// commentStarted reports whether the cursor is inside a comment.
func commentStarted(before string) bool {
	t := strings.TrimLeft(before, " \t")
	return strings.HasPrefix(t, "#") || strings.Contains(before, " #") || strings.Contains(before, "\t#")
}

// argAt is the description of the i-th positional argument.
func argAt(c *Command, i int) (Arg, bool) {
	if i < len(c.Args) {
		return c.Args[i], true
	}
	if n := len(c.Args); n > 0 && c.Args[n-1].Variadic {
		return c.Args[n-1], true
	}
	return Arg{}, false
}

func (s *Session) commandSuggestions() []Suggestion {
	out := make([]Suggestion, 0, len(s.cmds))
	for _, c := range s.cmds {
		out = append(out, Suggestion{c.Name, c.Short})
	}
	return out
}

func flagSuggestions(c *Command, given []string) []Suggestion {
	var out []Suggestion
	for _, f := range c.Flags {
		used := false
		for _, w := range given {
			used = used || w == "--"+f.Name || strings.HasPrefix(w, "--"+f.Name+"=")
		}
		if used && !f.Repeat {
			continue
		}
		out = append(out, Suggestion{"--" + f.Name, f.Usage})
	}
	return out
}

// filter keeps the suggestions that start with prefix, ignoring case.
func filter(list []Suggestion, prefix string) []Suggestion {
	if prefix == "" {
		return list
	}
	p := strings.ToLower(prefix)
	out := list[:0:0]
	for _, sg := range list {
		if strings.HasPrefix(strings.ToLower(sg.Text), p) {
			out = append(out, sg)
		}
	}
	return out
}
