package repl

import (
	"fmt"
	"strings"
)

// Token is one word of a command line.
type Token struct {
	Text  string // the word, quotes removed and escapes applied
	Start int    // byte offset of its first character in the line
	End   int    // byte offset just after it
}

// Tokenize splits a command line into words, the one way the executor and
// the completer both read a line: words are separated by blanks; '...'
// and "..." group blanks into a word; a backslash outside single quotes
// takes the next character literally; a '#' that starts a word begins a
// comment that runs to the end of the line.
//
// An unterminated quote is an error, but the tokens read so far are
// returned with it (the last one still open), which is what the completer
// needs while the user is typing.
func Tokenize(line string) ([]Token, error) {
	var (
		toks  []Token
		b     strings.Builder
		in    bool // inside a word
		start int
		quote byte
	)
	flush := func(end int) {
		if in {
			toks = append(toks, Token{Text: b.String(), Start: start, End: end})
			b.Reset()
			in = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			switch {
			case c == quote:
				quote = 0
			case c == '\\' && quote == '"' && i+1 < len(line):
				i++
				b.WriteByte(line[i])
			default:
				b.WriteByte(c)
			}
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			flush(i)
		case c == '#' && !in:
			return toks, nil
		default:
			if !in {
				in, start = true, i
			}
			switch c {
			case '\'', '"':
				quote = c
			case '\\':
				if i+1 < len(line) {
					i++
					b.WriteByte(line[i])
				}
			default:
				b.WriteByte(c)
			}
		}
	}
	if quote != 0 {
		flush(len(line))
		return toks, fmt.Errorf("unterminated %c quote", quote)
	}
	flush(len(line))
	return toks, nil
}

// words is the text of each token.
func words(toks []Token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Text
	}
	return out
}
