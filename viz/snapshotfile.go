package viz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gdamore/tcell/v2"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// snapshotFile is what `view --snapshot FILE` accepts: a bare
// snap.Snapshot (`show snapshot --json`) or a Frame (what `save` writes,
// or one line of what Publish sends). One decode of the whole file keeps
// error offsets true.
type snapshotFile struct {
	snap.Snapshot
	Frame     *snap.Snapshot `json:"snapshot"`
	Events    []trace.Event  `json:"events"`
	Narration string         `json:"narration"`
}

// LoadSnapshot reads a snapshot file and checks it (validateFrame). A
// JSON error names the file and the byte offset (and line and column)
// where it was found, a bad value the file and the field's JSON path.
func LoadSnapshot(path string) (Frame, error) {
	data, err := readSnapshotFile(path, maxSnapshotFile)
	if err != nil {
		return Frame{}, err
	}
	f, err := decodeSnapshot(data)
	if err != nil {
		return Frame{}, fmt.Errorf("%s: %w", safe.Text(path), err)
	}
	return f, nil
}

// readSnapshotFile reads at most limit bytes of path: a FIFO or /dev/zero
// is a file too.
func readSnapshotFile(path string, limit int) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read snapshot: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", safe.Text(path), err)
	}
	if len(data) > limit {
		return nil, fmt.Errorf("%s: more than %d MiB: not a snapshot", safe.Text(path), limit>>20)
	}
	return data, nil
}

// decodeSnapshot decodes the content of a snapshot file.
func decodeSnapshot(data []byte) (Frame, error) {
	var sf snapshotFile
	if err := json.Unmarshal(data, &sf); err != nil {
		return Frame{}, placeJSONError(data, err)
	}
	f := Frame{Snapshot: sf.Snapshot, Events: sf.Events, Narration: sf.Narration}
	path := "" // the JSON path of the snapshot, for errors
	if sf.Frame != nil {
		f.Snapshot, path = *sf.Frame, "snapshot."
	}
	if err := validateFrame(&f, path); err != nil {
		return Frame{}, err
	}
	return f, nil
}

// UnmarshalJSON decodes a frame as Publish writes it, checked as a
// snapshot file is: it may come from a socket anyone of this user made.
func (f *Frame) UnmarshalJSON(b []byte) error {
	type plain Frame // Frame's fields without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	fr := Frame(p)
	if err := validateFrame(&fr, "snapshot."); err != nil {
		return err
	}
	*f = fr
	return nil
}

// placeJSONError adds the byte offset, line and column to a decoding error.
func placeJSONError(data []byte, err error) error {
	var off int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off < 0 {
		return err
	}
	off = min(off, int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Errorf("byte %d (line %d, column %d): %w", off, line, col, err)
}

// RunSnapshot draws the snapshot saved in path full screen until q: what
// `rdmalab view --snapshot FILE` runs. A file that does not load is
// reported before the screen is touched.
func RunSnapshot(ctx context.Context, s tcell.Screen, path string) error {
	f, err := LoadSnapshot(path)
	if err != nil {
		return err
	}
	var v Viewer
	return v.Run(ctx, s, StaticSource(f, "snapshot "+path))
}

// DrawSnapshotFile draws the snapshot saved in path once on an initialised
// screen and shows it: for tests and bug reports that want the picture
// without the event loop.
func DrawSnapshotFile(s tcell.Screen, path string, th Theme) error {
	f, err := LoadSnapshot(path)
	if err != nil {
		return err
	}
	m := NewModel(len(f.Events))
	m.Update(f.Snapshot, f.Events)
	m.Narration, m.Origin = f.Narration, "snapshot "+path
	Draw(s, m, th)
	s.Show()
	return nil
}
