package lessons

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/rdmalab/rdmalab/internal/atomicfile"
)

// maxProgressFile bounds what is read back: the file is ours, but a
// damaged or replaced one must not cost more than a list of names.
const maxProgressFile = 1 << 20

// Progress is which lessons the learner has finished, kept in a small
// JSON file under the XDG state directory.
type Progress struct {
	path     string
	Finished map[string]time.Time `json:"finished"`
}

// LoadProgress reads the progress file at path; a missing one is an empty
// record. A damaged file is reported and treated as empty, so a learner is
// never locked out of lessons by it.
func LoadProgress(path string) (*Progress, error) {
	p := &Progress{path: path, Finished: map[string]time.Time{}}
	if path == "" {
		return p, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProgressFile+1))
	if err != nil {
		return p, err
	}
	if len(data) > maxProgressFile {
		return p, fmt.Errorf("%s: over %d bytes: not a progress file", path, maxProgressFile)
	}
	var v Progress
	if err := json.Unmarshal(data, &v); err != nil {
		return p, fmt.Errorf("%s: %w (starting afresh)", path, err)
	}
	for k, t := range v.Finished {
		if validName(k) {
			p.Finished[k] = t
		}
	}
	return p, nil
}

// Done reports whether the lesson called name was finished.
func (p *Progress) Done(name string) bool {
	_, ok := p.Finished[name]
	return ok
}

// MarkFinished records name as finished at t and writes the file whole
// (a crash leaves the old one).
func (p *Progress) MarkFinished(name string, t time.Time) error {
	p.Finished[name] = t.UTC().Truncate(time.Second)
	if p.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p.path), 0o700); err != nil {
		return err
	}
	_, err := atomicfile.Write(p.path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	})
	return err
}

// Path is the file the progress is kept in ("" keeps none).
func (p *Progress) Path() string { return p.path }
