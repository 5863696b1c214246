package repl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// maxLine is the longest line the REPL takes, at the prompt, in a script
// or from the history file. No command needs more; a longer line is
// refused whole (never cut and run), so that a stray paste can neither
// freeze the prompt nor poison the history.
const maxLine = 64 << 10

// tooLong says a line is over maxLine.
func tooLong(n int) string {
	return fmt.Sprintf("line of %d bytes is over the %d-byte (64 KiB) limit: not run", n, maxLine)
}

// lineScanner reads lines of any length in bounded memory: a line over
// maxLine is skipped, and only its length is kept.
type lineScanner struct {
	r   *bufio.Reader
	buf []byte
	n   int // the number of the line last read, from 1
}

func newLineScanner(r io.Reader) *lineScanner {
	return &lineScanner{r: bufio.NewReaderSize(r, 64<<10)}
}

// next reads the next line without its "\n" or "\r\n". For a line over
// maxLine it returns "" and the line's length in long. At the end it
// returns io.EOF, and a read error as it is.
func (l *lineScanner) next() (line string, long int, err error) {
	l.buf = l.buf[:0]
	total := 0
	var last []byte // the last fragment read, for the line's end
	for {
		frag, err := l.r.ReadSlice('\n')
		total += len(frag)
		if len(frag) > 0 {
			last = frag
		}
		if room := maxLine + 2 - len(l.buf); room > 0 {
			l.buf = append(l.buf, frag[:min(len(frag), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && (total == 0 || !errors.Is(err, io.EOF)) {
			return "", 0, err
		}
		break
	}
	l.n++
	if last[len(last)-1] == '\n' {
		total--
	}
	if total > maxLine+1 {
		if n := len(last); n >= 2 && last[n-2] == '\r' && last[n-1] == '\n' {
			total--
		}
		return "", total, nil
	}
	b := l.buf[:total]
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	if len(b) > maxLine {
		return "", len(b), nil
	}
	return string(b), 0, nil
}
