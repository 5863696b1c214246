package viz

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A frame and a bare snapshot (what `show snapshot --json` prints) both
// load back to what was saved, last_event and event kinds included.
func TestLoadSnapshotRoundTrip(t *testing.T) {
	l := stateRace(t)
	want := Frame{Snapshot: l.Snapshot(), Events: l.History(), Narration: "the race"}
	frame, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadSnapshot(writeFile(t, "frame.json", frame))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("frame did not round-trip:\n got %+v\nwant %+v", got.Snapshot.LastEvent, want.Snapshot.LastEvent)
	}
	bare, _ := json.MarshalIndent(want.Snapshot, "", "  ")
	got, err = LoadSnapshot(writeFile(t, "snap.json", bare))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Snapshot, want.Snapshot) || len(got.Events) != 0 {
		t.Error("bare snapshot did not round-trip")
	}
}

// The three files a session writes load, and the frames they hold encode
// back to the same bytes: compat-publish.json is one line of what Publish
// sends (the socket protocol), compat-save.json what `save` writes,
// compat-show.json what `show snapshot --json` prints. They were written
// before the decoder took the snapshot's own types, so a change of format
// in either direction fails here.
func TestSnapshotFilesCompatible(t *testing.T) {
	indent := func(v any) []byte {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		return append(b, '\n')
	}
	for _, tc := range []struct {
		file   string
		encode func(Frame) []byte
	}{
		{"compat-publish.json", func(f Frame) []byte {
			var b bytes.Buffer
			if err := json.NewEncoder(&b).Encode(f); err != nil {
				t.Fatal(err)
			}
			return b.Bytes()
		}},
		{"compat-save.json", func(f Frame) []byte { return indent(f) }},
		{"compat-show.json", func(f Frame) []byte { return indent(f.Snapshot) }},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := LoadSnapshot(path)
			if err != nil {
				t.Fatal(err)
			}
			if f.Snapshot.LastEvent == nil || len(f.Snapshot.Threads) == 0 {
				t.Fatalf("%s loaded without its last event or threads", tc.file)
			}
			if got := tc.encode(f); !bytes.Equal(got, want) {
				t.Errorf("%s does not encode back to its bytes:\n got %.300s…\nwant %.300s…", tc.file, got, want)
			}
		})
	}
	// A socket line decodes through Frame's UnmarshalJSON to the same frame.
	line, _ := os.ReadFile(filepath.Join("testdata", "compat-publish.json"))
	var f Frame
	if err := json.Unmarshal(line, &f); err != nil {
		t.Fatal(err)
	}
	if want, _ := LoadSnapshot(filepath.Join("testdata", "compat-publish.json")); !reflect.DeepEqual(f, want) {
		t.Error("the socket's decoding and the file's differ")
	}
}

// Bad JSON names the file and the byte offset, line and column.
func TestLoadSnapshotErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"syntax", "{\n  \"sq\": {\"sc_sq_depth\": 4,}\n}", "byte 29 (line 2, column 28)"},
		{"type", `{"sq": {"sc_sq_depth": "four"}}`, "byte 29 (line 1, column 30)"},
		{"truncated", `{"snapshot": {`, "byte 14 (line 1, column 15)"},
		{"kind", `{"snapshot": {}, "events": [{"seq": 7, "kind": "jump"}]}`, `unknown event kind "jump"`},
		{"empty", ``, "byte 0 (line 1, column 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.name+".json", []byte(tc.data))
			_, err := LoadSnapshot(path)
			if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %s: …%s…", err, path, tc.want)
			}
		})
	}
	if _, err := LoadSnapshot(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("missing file: %v", err)
	}
}

// The saved picture draws as the live one did.
func TestDrawSnapshotFile(t *testing.T) {
	l := stateRead3(t)
	data, _ := json.Marshal(Frame{Snapshot: l.Snapshot(), Events: l.History()})
	path := writeFile(t, "read3.json", data)
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	defer s.Fini()
	s.SetSize(80, 24)
	if err := DrawSnapshotFile(s, path, NewTheme(256)); err != nil {
		t.Fatal(err)
	}
	got := rows(s)
	_, want := render(t, modelOf(l), NewTheme(256), 80, 24)
	// The status row names the file; everything else is the same.
	if strings.Join(got[:23], "\n") != strings.Join(want[:23], "\n") {
		t.Errorf("snapshot file drew\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRunSnapshot(t *testing.T) {
	l := stateRead3(t)
	data, _ := json.Marshal(l.Snapshot())
	path := writeFile(t, "s.json", data)
	s := &countScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	done := make(chan error, 1)
	go func() { done <- RunSnapshot(context.Background(), s, path) }()
	waitFor(t, "the snapshot's frame", func() bool { return s.shows.Load() > 0 })
	if !strings.Contains(s.text(), "snapshot /") {
		t.Errorf("the frame does not name the file:\n%s", s.text())
	}
	s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	if err := waitRun(t, done); err != nil {
		t.Fatal(err)
	}
	bad := writeFile(t, "bad.json", []byte("{"))
	s2 := tcell.NewSimulationScreen("UTF-8")
	if err := RunSnapshot(context.Background(), s2, bad); err == nil || !strings.Contains(err.Error(), "bad.json: byte 1") {
		t.Fatalf("bad file: %v", err)
	}
	if w, _ := s2.Size(); w != 0 {
		t.Error("a bad file touched the screen")
	}
}
