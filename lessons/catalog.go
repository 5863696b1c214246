package lessons

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed *.md files
var shipped embed.FS

// Shipped is the lessons that come with rdmalab: the *.md files at the
// top and the files/ folder their `files:` lines name.
func Shipped() fs.FS { return shipped }

// Dir is a folder of lessons: the shipped ones, or a trainer's.
type Dir struct {
	FS   fs.FS
	Name string // how lists name it: "shipped", or the folder's path
}

// Entry is one lesson file of a catalog: parsed, or with its fault.
type Entry struct {
	Lesson *Lesson // nil when Err is set
	Err    error
	File   string // path inside Dir
	Dir    Dir
}

// Name is the lesson's name, or its file's when it does not parse.
func (e *Entry) Name() string {
	if e.Lesson != nil {
		return e.Lesson.Name
	}
	return strings.TrimSuffix(path.Base(e.File), ".md")
}

// CopyFile copies a file the lesson's `files:` line names, from the
// files/ folder beside it, to w: a regular file of at most MaxDataFile
// bytes, read from the lesson's folder (OpenDir keeps links inside it).
func (e *Entry) CopyFile(name string, w io.Writer) error {
	if !validFile(name) {
		return fmt.Errorf("file %q: not a plain file name", name)
	}
	f, err := openRegular(e.Dir.FS, path.Join(path.Dir(e.File), "files", name), MaxDataFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return errors.New("no such file in the files/ folder beside the lesson")
		}
		return err
	}
	defer f.Close()
	n, err := io.Copy(w, io.LimitReader(f, MaxDataFile+1))
	if err == nil && n > MaxDataFile {
		err = fmt.Errorf("over %d bytes (it grew as it was read): at most %d", MaxDataFile, int64(MaxDataFile))
	}
	return err
}

// Catalog is every lesson the learner can take, shipped ones first, then
// each folder added in order. A later lesson with the same name as an
// earlier one takes its place: a trainer may rewrite a shipped lesson.
type Catalog struct {
	entries []*Entry
	shadows map[string]*Entry // by name: the earlier lesson a later one replaced
}

// Load reads the *.md files at the top of each folder, in name order.
// A file that does not parse stays in the catalog with its error, so a
// list can show it and the rest still run.
func Load(validate Validator, dirs ...Dir) (*Catalog, error) {
	c := &Catalog{}
	byName := map[string]int{}
	for _, d := range dirs {
		names, err := fs.Glob(d.FS, "*.md")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Name, err)
		}
		sort.Strings(names)
		for _, n := range names {
			if strings.EqualFold(n, "README.md") {
				continue
			}
			e := LoadEntry(d, n, validate)
			if i, dup := byName[e.Name()]; dup {
				if c.shadows == nil {
					c.shadows = map[string]*Entry{}
				}
				if _, again := c.shadows[e.Name()]; !again {
					c.shadows[e.Name()] = c.entries[i] // the first one the name had
				}
				c.entries[i] = e
				continue
			}
			byName[e.Name()] = len(c.entries)
			c.entries = append(c.entries, e)
		}
	}
	return c, nil
}

// LoadEntry reads and parses one lesson file of a folder.
func LoadEntry(d Dir, name string, validate Validator) *Entry {
	e := &Entry{File: name, Dir: d}
	label := name
	if d.Name != "shipped" {
		label = path.Join(d.Name, name)
	}
	data, err := readLimited(d.FS, name)
	if err != nil {
		e.Err = fmt.Errorf("%s: %w", label, err)
	} else {
		e.Lesson, e.Err = Parse(label, data, validate)
	}
	return e
}

// readLimited reads a lesson file: a regular file of at most
// MaxFileSize bytes.
func readLimited(fsys fs.FS, name string) ([]byte, error) {
	b, err := readRegular(fsys, name, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("a lesson file: %w", err)
	}
	return b, nil
}

// Shadowed is the lesson of that name an entry of a later folder took
// the place of (the shipped one, when it was one), or nil.
func (c *Catalog) Shadowed(name string) *Entry { return c.shadows[name] }

// Entries lists the catalog in order.
func (c *Catalog) Entries() []*Entry { return c.entries }

// NotFoundError is a lesson name the catalog does not hold.
type NotFoundError struct{ Name string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("no lesson %q", e.Name) }

// Find returns the lesson called name: the entry, and its fault when it
// does not parse, or a *NotFoundError.
func (c *Catalog) Find(name string) (*Entry, error) {
	for _, e := range c.entries {
		if e.Name() == name {
			return e, e.Err
		}
	}
	return nil, &NotFoundError{name}
}
