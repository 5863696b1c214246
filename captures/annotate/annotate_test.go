package annotate

import (
	"bytes"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/fields"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// comments reads the capture at path: each frame's comments.
func comments(t *testing.T, path string) map[int][]string {
	t.Helper()
	r, err := pcapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := map[int][]string{}
	var rec pcapfile.Record
	for {
		if err := r.Next(&rec); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		if len(rec.Comments) > 0 {
			out[rec.Frame] = rec.Comments
		}
	}
}

// notes is every note decode --check finds in the capture at path, as
// the comments should carry them.
func notes(t *testing.T, path string) map[int][]string {
	t.Helper()
	an, err := decode.ReadFileWith(path, analysis.Options{}, func(*analysis.Packet) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][]string{}
	for _, n := range an.Notes() {
		out[n.Frame] = append(out[n.Frame], Prefix+n.Kind.String()+": "+n.Text)
	}
	return out
}

// TestNotesBecomeComments: every note on every kernel capture is its
// frame's comment, and nothing else is; the frames are the capture's.
func TestNotesBecomeComments(t *testing.T) {
	total := 0
	for _, name := range testutil.KernelCaptures() {
		in := testutil.Capture(t, name)
		out := filepath.Join(t.TempDir(), "out.pcapng")
		st, err := WriteFile(out, in, Options{Notes: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := notes(t, in)
		if got := comments(t, out); !equal(got, want) {
			t.Errorf("%s: comments %v\nwant the notes %v", name, got, want)
		}
		n := 0
		for _, c := range want {
			n += len(c)
		}
		if st.Comments != n {
			t.Errorf("%s: %d comments counted, %d notes", name, st.Comments, n)
		}
		total += n
		var a, b bytes.Buffer
		if _, err := decode.Write(&a, in, decode.Output{}); err != nil {
			t.Fatal(err)
		}
		if _, err := decode.Write(&b, out, decode.Output{}); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("%s: the packets written decode otherwise than the capture's", name)
		}
	}
	if total == 0 {
		t.Fatal("no capture had a note: the test proves nothing")
	}
}

func equal(a, b map[int][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestCommentsKept: a capture's own comments stay, before rdmalab's; a
// selection writes only the packets it selects.
func TestCommentsKept(t *testing.T) {
	in := testutil.Capture(t, "verbs-rc-pingpong.pcap")
	// The capture again as pcapng, with a comment of its own on frame 20
	// and a long one on frame 1.
	r, err := pcapfile.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := pcapfile.NewNgWriter(&buf, r.LinkType())
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 40000) // 80,000 bytes: more than an option holds
	var rec pcapfile.Record
	for r.Next(&rec) == nil {
		var cs []string
		switch rec.Frame {
		case 20:
			cs = []string{"seen by the trainer"}
		case 1:
			cs = []string{long}
		}
		if err := w.WritePacketComments(0, rec.Info, rec.Data, cs); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	src := filepath.Join(t.TempDir(), "commented.pcapng")
	testutil.WriteFile(t, src, buf.Bytes())
	got := comments(t, src)
	if c := got[1]; len(c) != 1 || len(c[0]) != 65534 || c[0] != long[:65534] {
		t.Errorf("a long comment is cut at the last whole character within 65535 bytes: %d bytes", len(c[0]))
	}

	out := filepath.Join(t.TempDir(), "out.pcapng")
	sel, err := fields.CompileDisplayFilter("frame.number >= 20 && frame.number <= 23")
	if err != nil {
		t.Fatal(err)
	}
	st, err := WriteFile(out, src, Options{Notes: true, Display: sel})
	if err != nil {
		t.Fatal(err)
	}
	if st.Packets != 4 {
		t.Errorf("-Y selected %d packets, want 4", st.Packets)
	}
	got = comments(t, out)
	if c := got[1]; len(c) < 2 || c[0] != "seen by the trainer" || !strings.HasPrefix(c[1], Prefix+"retransmission") {
		t.Errorf("frame 20 (the first written) has comments %q: want its own, then rdmalab's", c)
	}
}

// TestTsharkReadsComments: Wireshark finds the notes with frame.comment.
func TestTsharkReadsComments(t *testing.T) {
	in := testutil.Capture(t, "verbs-rc-pingpong.pcap")
	out := filepath.Join(t.TempDir(), "out.pcapng")
	if _, err := WriteFile(out, in, Options{Notes: true}); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, cs := range notes(t, in) {
		for _, c := range cs {
			if strings.Contains(c, "retransmission") {
				want++
				break
			}
		}
	}
	got := testutil.RunTshark(t, "-r", out, "-Y", `frame.comment contains "retransmission"`, "-T", "fields", "-e", "frame.number")
	if n := strings.Count(got, "\n"); n != want || want == 0 {
		t.Errorf("tshark finds %d frames with a retransmission comment, decode notes %d", n, want)
	}
	v := testutil.RunTshark(t, "-r", out, "-V", "-Y", "frame.number == 20")
	if !strings.Contains(v, "Packet comments") || !strings.Contains(v, Prefix+"retransmission") {
		t.Errorf("tshark -V shows no comment on frame 20:\n%s", v)
	}
}

// TestDamagedCaptureWritesNothing: a truncated capture is named and
// leaves no file.
func TestDamagedCaptureWritesNothing(t *testing.T) {
	b := testutil.ReadCapture(t, "nfs3-rdma.pcap")
	in := filepath.Join(t.TempDir(), "cut.pcap")
	testutil.WriteFile(t, in, b[:len(b)-9])
	out := filepath.Join(t.TempDir(), "out.pcapng")
	_, err := WriteFile(out, in, Options{Notes: true})
	if err == nil || !strings.Contains(err.Error(), "cut.pcap") {
		t.Errorf("a truncated capture: %v", err)
	}
	if matches, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*")); len(matches) != 0 {
		t.Errorf("left behind: %v", matches)
	}
}
