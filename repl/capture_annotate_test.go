package repl

import (
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/annotate"
	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// capture save --annotate writes the lab's traffic as pcapng with each
// note decode --check finds on the plain capture as its frame's comment,
// the late ones (a call not answered yet) included.
func TestCaptureSaveAnnotate(t *testing.T) {
	s, dir := trafficSession(t)
	exec(t, s, "write 4096") // a call on the wire, its reply not yet
	exec(t, s, "step 5")
	out := exec(t, s, "capture save --annotate lab.pcapng")
	if !strings.Contains(out, "(pcapng), with ") || !strings.Contains(out, "notes as packet comments") {
		t.Errorf("capture save --annotate says %q", out)
	}
	exec(t, s, "capture save lab.pcap")

	an, err := decode.ReadFileWith(filepath.Join(dir, "lab.pcap"), analysis.Options{}, func(*analysis.Packet) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := map[int][]string{}
	for _, n := range an.Notes() {
		want[n.Frame] = append(want[n.Frame], annotate.Prefix+n.Kind.String()+": "+n.Text)
	}
	if len(want) == 0 {
		t.Fatal("the lab's traffic has no note: the test proves nothing")
	}
	r, err := pcapfile.Open(filepath.Join(dir, "lab.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Format() != pcapfile.FormatPcapNG {
		t.Errorf("capture save --annotate wrote %v, not pcapng", r.Format())
	}
	got := map[int][]string{}
	var rec pcapfile.Record
	for {
		if err := r.Next(&rec); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if rec.Comments != nil {
			got[rec.Frame] = rec.Comments
		}
	}
	for f, w := range want {
		if !slices.Equal(got[f], w) {
			t.Errorf("frame %d: comments %q, want %q", f, got[f], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d frames have comments, %d have notes", len(got), len(want))
	}
}
