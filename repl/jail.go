package repl

// Where a command's FILE is read and written. A command a lesson file runs
// is confined to the lesson's folder (a lesson is untrusted); a command the
// user types, or a script they run, is not.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// lessonJail is the folder a lesson's own commands may read and write,
// and the step running, for messages.
type lessonJail struct {
	dir string // the lesson's folder as created
	at  string // FILE:LINE of the step's command
}

// resolveFile is where FILE, as the command was given it, is read or
// written: beside the script being run, or in the session's folder; in
// a lesson's command, inside the lesson's folder or nowhere. Every
// command that takes a FILE goes through it.
func (c *Ctx) resolveFile(name string) (string, error) {
	if c.jail == nil {
		return c.S.resolve(name), nil
	}
	return c.jail.resolve(name)
}

// resolve confines name to the lesson's folder. The folder and the
// existing part of the path are resolved through their symbolic links,
// and the path returned holds none of them up to its last element, so a
// write goes to the directory that was checked (atomicfile replaces a
// link at the last element, never follows it); a link there that leads
// out is refused, as a read would follow it.
func (j *lessonJail) resolve(name string) (string, error) {
	fail := func(why string) error {
		return fmt.Errorf("%s: file %s: %s", j.at, shown(name), why)
	}
	switch {
	case name == "" || strings.ContainsRune(name, 0):
		return "", fail("not a file name")
	case filepath.IsAbs(name):
		return "", fail("an absolute path: a lesson names files in the lesson's folder")
	}
	clean := filepath.Clean(name)
	if !filepath.IsLocal(clean) {
		return "", fail("outside the lesson's folder")
	}
	root, err := filepath.EvalSymlinks(j.dir)
	if err != nil {
		return "", fail(fmt.Sprintf("the lesson's folder: %v", errors.Unwrap(err)))
	}
	dir, err := evalExisting(filepath.Join(root, filepath.Dir(clean)))
	if err != nil {
		return "", fail(err.Error())
	}
	if !within(root, dir) {
		return "", fail("a symbolic link leads out of the lesson's folder")
	}
	full := filepath.Join(dir, filepath.Base(clean))
	if fi, err := os.Lstat(full); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(full)
		if err != nil || !within(root, t) {
			return "", fail("a symbolic link leads out of the lesson's folder")
		}
	}
	return full, nil
}

// evalExisting resolves the symbolic links of path's longest existing
// prefix and joins the rest, which does not exist yet, as it is. A
// dangling link is refused: the rest would be created through it.
func evalExisting(path string) (string, error) {
	rest := ""
	for {
		r, err := filepath.EvalSymlinks(path)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("resolve %s: %w", shown(path), errors.Unwrap(err))
		}
		if _, lerr := os.Lstat(path); lerr == nil {
			// A link to nothing: what it names may appear later, anywhere.
			return "", errors.New("a symbolic link that leads nowhere")
		}
		parent := filepath.Dir(path)
		if parent == path {
			return "", err
		}
		rest = filepath.Join(filepath.Base(path), rest)
		path = parent
	}
}

// within reports whether path is root or below it (both cleaned).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && filepath.IsLocal(rel)
}
