package repl

// The files the user asks for (save, capture save, capture start) and the
// names and lines the REPL repeats back to the terminal.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/rdmalab/rdmalab/internal/atomicfile"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// shown is safe.Typed: file names, script lines and typed words go
// through it before any message repeats them.
func shown(s string) string { return safe.Typed(s) }

// shownLines is shown for each line of a message of several (an error
// and its usage line), so the line breaks stay breaks.
func shownLines(s string) string {
	if !strings.Contains(s, "\n") {
		return shown(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = shown(l)
	}
	return strings.Join(lines, "\n")
}

// writeFile writes FILE (as the user wrote it, relative to the script's
// directory) atomically with what fn writes: a failure leaves an existing
// FILE as it was and no temporary file behind.
func (c *Ctx) writeFile(name string, fn func(io.Writer) error) (*atomicfile.File, error) {
	path, err := c.resolveFile(name)
	if err != nil {
		return nil, err
	}
	af, err := atomicfile.Write(path, fn)
	if err != nil {
		return nil, fileErr(err, path, name)
	}
	return af, nil
}

// fileErr says why FILE could not be written, naming it as the user wrote
// it, and that nothing of an existing FILE was lost.
func fileErr(err error, path, name string) error {
	var nr *atomicfile.NotRegularError
	switch {
	case errors.As(err, &nr):
		return fmt.Errorf("%s is %s, not a regular file: nothing was written (name a file)", shown(name), atomicfile.Describe(nr.Mode))
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such directory: %s", shown(name), shown(filepath.Dir(name)))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %v (nothing was written: a file already there is as it was)", shown(name), err)
}

// linkNote says that FILE was a symbolic link and was replaced, not
// followed.
func linkNote(out io.Writer, name string, af *atomicfile.File) {
	if l := af.ReplacedLink(); l != "" {
		fmt.Fprintf(out, "note: %s was a symbolic link to %s: the link is now this file, and %s is untouched\n",
			shown(name), shown(l), shown(l))
	}
}
