package replay

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/internal/testutil"
)

// transcripts is every transcript of tl, built to its end: the steps'
// lines with their events, and the JSON.
func transcripts(t *testing.T, tl *Timeline) string {
	t.Helper()
	tl.All()
	var b bytes.Buffer
	for _, o := range []Options{{Events: true}, {JSON: true}} {
		if err := tl.WriteTranscript(&b, o); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// A timeline that follows an Index's pass (the view's) is the timeline
// the replay's own decoder builds, step for step: on every capture, one
// cut in the middle of a record, one that starts mid-stream, and one long
// enough that the index runs ahead of the builder's lookahead and sweeps.
func TestOpenIndexSameSteps(t *testing.T) {
	paths, err := filepath.Glob(testutil.Capture(t, "*.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := testutil.ReadCapture(t, nfs3)
	cut := filepath.Join(dir, "cut.pcap")
	many := filepath.Join(dir, "many.pcap")
	if err := os.WriteFile(cut, data[:len(data)*2/5+7], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(many, manyRPCs(t, 3000).pcap(), 0o600); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, cut, many, cutCapture(t, testutil.Capture(t, nfs3), 150))
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, werr := OpenFile(path, ReadOptions{})
			x, err := decode.OpenIndexWith(path, decode.IndexOptions{Follow: true})
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			got, gerr := OpenIndex(x, path, ReadOptions{})
			if werr != nil || gerr != nil {
				if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
					t.Fatalf("opening: %v from the index, want %v", gerr, werr)
				}
				return
			}
			defer want.Close()
			defer got.Close()
			w, g := transcripts(t, want), transcripts(t, got)
			if g != w {
				t.Errorf("the index's timeline differs from the file's:\n%s", firstDiff(g, w))
			}
			if got.Frames != want.Frames || got.NumSteps() != want.NumSteps() || (got.Err == nil) != (want.Err == nil) ||
				(got.Err != nil && got.Err.Error() != want.Err.Error()) {
				t.Errorf("index: %d frames, %d steps, %v; file: %d frames, %d steps, %v",
					got.Frames, got.NumSteps(), got.Err, want.Frames, want.NumSteps(), want.Err)
			}
		})
	}
}

// firstDiff shows where two transcripts part.
func firstDiff(got, want string) string {
	g, w := bytes.Split([]byte(got), []byte("\n")), bytes.Split([]byte(want), []byte("\n"))
	for i := range min(len(g), len(w)) {
		if !bytes.Equal(g[i], w[i]) {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, g[i], w[i])
		}
	}
	return "one is longer"
}
