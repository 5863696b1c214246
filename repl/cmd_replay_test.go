package repl

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

// replay --qp in the REPL follows one transport as rdmalab replay --qp
// does: the transcript says what was left out and how to have it all,
// and a QP no transport has, or no number at all, says so.
func TestReplayQP(t *testing.T) {
	s, dir := captureSession(t)
	// The kernel's NFSv3 and NFSv4.1 captures at once: QPs 0x11 and 0x13.
	two := testutil.MergeCaptures(t, [][]byte{testutil.ReadCapture(t, "nfs3-rdma.pcap"), testutil.ReadCapture(t, "nfs4.1-rdma.pcap")},
		[]int64{0, -12_500_000})
	testutil.WriteFile(t, filepath.Join(dir, "two.pcap"), two)

	all := exec(t, s, "replay two.pcap")
	for _, want := range []string{"on 2 transports", "\nxprt 1: server 192.0.2.1 QP 0x000011", "\nxprt 2: server 192.0.2.1 QP 0x000013"} {
		if !strings.Contains(all, want) {
			t.Errorf("replay two.pcap does not say %q:\n%.600s", want, all)
		}
	}
	one := exec(t, s, "replay two.pcap --qp 0x13")
	if !strings.Contains(one, "frames of other queue pairs are not replayed: only the transport of QP 0x000013 (without --qp every transport is)") {
		t.Errorf("replay --qp 0x13 does not say what it left out:\n%.600s", one)
	}
	if strings.Contains(one, "xprt 2") || strings.Contains(one, "QP 0x000011") {
		t.Errorf("replay --qp 0x13 shows the other transport:\n%.600s", one)
	}
	// Decimal names the same queue pair, and the steps are NFSv4.1's alone.
	if dec := exec(t, s, "replay two.pcap --qp 19"); dec != one {
		t.Errorf("--qp 19 and --qp 0x13 differ")
	}
	alone := exec(t, s, "replay nfs3-rdma.pcap --qp 0x11")
	if !strings.Contains(alone, "752 frames, 714 steps, 38 RPCs") {
		t.Errorf("replay nfs3-rdma.pcap --qp 0x11:\n%.300s", alone)
	}

	for line, want := range map[string]string{
		"replay two.pcap --qp 0x99": "two.pcap: no transport has queue pair 0x000099; the capture's have 0x000011; 0x000013",
		"replay two.pcap --qp frog": "--qp frog: not a queue pair number (1 to 0xffffff, as 0x11 or 17)",
		"replay two.pcap --qp 0":    "--qp 0: not a queue pair number",
		"replay two.pcap --qp":      "--qp needs a value (QPN)",
	} {
		var out bytes.Buffer
		err := s.Exec(line, Pos{}, &out)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", line, err, want)
		}
	}
}

// Tab offers --qp after replay FILE, as every flag of the table.
func TestReplayQPCompletes(t *testing.T) {
	s, _ := captureSession(t)
	if got := s.Complete("replay nfs3-rdma.pcap --q"); !has(got, "--qp") {
		t.Errorf("replay nfs3-rdma.pcap --q completes to %v", texts(got))
	}
}
