package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The command line without a terminal: a transcript, usage errors, and a
// damaged file replayed up to where it breaks.
func TestReplayCommandLine(t *testing.T) {
	const pcap = "captures/testdata/nfs3-rdma.pcap"
	for _, tc := range []struct {
		name   string
		args   []string
		status int
		out    []string // in stdout
		err    string   // in stderr
	}{
		{"text", []string{pcap}, exitOK, []string{
			"replay of " + pcap + ": server 192.0.2.1, client 192.0.2.2\n", "end of the replay: 752 frames, 714 steps, 38 RPCs\n",
			"unknown: the capture does not show the server's CQ",
			"    88  svc_rdma_process_read_list (svc_rdma_read_data_item): 1 chunk, 131072 B into 32 rc_pages → 7 RDMA READs posted as one chain",
			"   222  svc_rdma_wc_read_done: the last READ response landed, 131072 of 131072 B in 32 rc_pages",
			"   387  AETH MSN 46 acknowledges SEND #46 (frame 379) → svc_rdma_wc_send, xpt_acked_pos 25",
		}, ""},
		{"by RPC", []string{"--rpc", pcap}, exitOK, []string{"RPC 18  xid 0x4bdbd665  V3 WRITE Call"}, ""},
		{"events", []string{"-v", pcap}, exitOK, []string{"          nfs", "svc_rdma_post_send(sqecount=8)"}, ""},
		{"json", []string{"--json", pcap}, exitOK, []string{`{"step":1,"frame":1,"time":"0.000000s","kind":"connect"`}, ""},
		{"help", []string{"-h"}, exitOK, []string{"usage: rdmalab replay"}, ""},
		{"no file", nil, exitUsage, nil, "no capture file given"},
		{"two files", []string{pcap, pcap}, exitUsage, nil, "one capture file at a time"},
		{"bad flag", []string{"--frobnicate", pcap}, exitUsage, nil, "frobnicate"},
		{"json and rpc", []string{"--json", "--rpc", pcap}, exitUsage, nil, "--json does not go with"},
		{"missing", []string{"nosuch.pcap"}, 1, nil, "rdmalab replay: open nosuch.pcap: no such file or directory"},
		{"no RPC", []string{"captures/testdata/rdmacm-rping.pcap"}, 1, nil, "rdmacm-rping.pcap: no RPC-over-RDMA traffic"},
		{"escaped name", []string{"nosuch\x1b[2J.pcap"}, 1, nil, `rdmalab replay: open nosuch\x1b[2J.pcap: no such file`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if got := run(append([]string{"replay"}, tc.args...), nil, &out, &errb); got != tc.status {
				t.Errorf("exit status %d, want %d; stderr %q", got, tc.status, errb.String())
			}
			for _, w := range tc.out {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q", w)
				}
			}
			if tc.err != "" && !strings.Contains(errb.String(), tc.err) {
				t.Errorf("stderr %q lacks %q", errb.String(), tc.err)
			}
			if tc.err == "" && errb.Len() > 0 {
				t.Errorf("stderr: %q", errb.String())
			}
		})
	}
}

// A capture cut inside a packet replays up to the cut; the last step and
// the error name the frame and byte offset, and the status is 1.
func TestReplayTruncated(t *testing.T) {
	data, err := os.ReadFile("captures/testdata/nfs3-rdma.pcap")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cut.pcap")
	if err := os.WriteFile(path, data[:250000], 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if got := run([]string{"replay", path}, nil, &out, &errb); got != 1 {
		t.Errorf("exit status %d, want 1", got)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if end := lines[len(lines)-1]; !strings.HasPrefix(end, "end of the replay: 333 frames, 309 steps") {
		t.Errorf("last line %q does not count the steps", end)
	}
	lines = lines[:len(lines)-1]
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "   334  the capture breaks at frame 334, byte offset 250000") {
		t.Errorf("last line %q does not name the break", last)
	}
	if !strings.Contains(lines[len(lines)-2], "   333  RDMA WRITE") {
		t.Errorf("the replay does not go up to the break: %q", lines[len(lines)-2])
	}
	if want := path + ": frame 334, offset 250000"; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q lacks %q", errb.String(), want)
	}
}

// startTmuxArgs is startTmux for `rdmalab ARGS...`.
func startTmuxArgs(t *testing.T, cols, rows int, args ...string) *tmuxSession {
	t.Helper()
	return startTmuxCmd(t, cols, rows, nil, args)
}

// rdmalab replay on a terminal: the view opens before the first step,
// the keys step by packet and by RPC, go back, and q gives the terminal
// back.
func TestReplayTmux(t *testing.T) {
	needTmux(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	ts := startTmuxArgs(t, 160, 50, "replay", filepath.Join(wd, "captures/testdata/nfs3-rdma.pcap"))
	ts.waitFor(`replay frame 0/752`)
	// Each pane is drawn in its own time: wait for each, not for the status line.
	for _, want := range []string{"714 steps, 38 RPCs", "unknown: the capture does not show the server's CQ", "sc_sq_depth unknown"} {
		ts.waitFor(regexp.QuoteMeta(want))
	}
	ts.keys("s")
	ts.waitFor(`CM REQ from 192\.0\.2\.2 QP 0x000011`)
	// n to the WRITE's call (RPC 18), then s to its Read list posted.
	// One key at a time: the view drops a key that comes while an action runs.
	for k := 1; k <= 18; k++ {
		ts.keys("n")
		ts.waitFor(`replay frame \d+/752 · RPC ` + strconv.Itoa(k) + `/38`)
	}
	ts.waitFor(`replay frame 86/752 · RPC 18/38`)
	ts.keys("s")
	ts.waitFor(`replay frame 88/752`)
	for _, want := range []string{"rc_pages · xid 0x4bdbd665 · 131072 B · 7 WQEs", "1. read chunk xid 0x4bdbd665 · nfsd · 7 WQEs",
		"◆ svc_rdma_wc_read_done", "Send Queue · 7 WQEs in flight"} {
		ts.waitFor(regexp.QuoteMeta(want))
	}
	// C: the next completion is the chain's last READ response.
	ts.keys("C")
	ts.waitFor(`replay frame 222/752`)
	ts.waitFor(regexp.QuoteMeta("svc_rdma_wc_read_done: the last READ response landed, 131072 of 131072 B"))
	// f: the end of this RPC, its reply's ACK; 4 shows the positions.
	ts.keys("f")
	ts.waitFor(`replay frame 224/752`)
	ts.keys("4")
	ts.waitFor(`Positions · sc_post_seq 18 · xpt_acked_pos 18`)
	ts.keys("b")
	ts.waitFor(`replay frame 223/752`)
	ts.keys("q")
	scr := ts.waitFor(`(?s)EXITED \d+.*icanon.*echoke`) // stty -a has printed its local flags
	if !strings.Contains(scr, "EXITED 0") {
		t.Errorf("rdmalab replay did not exit 0:\n%s", scr)
	}
	for _, flag := range []string{"icanon", "echo", "isig", "icrnl", "opost"} {
		if !regexp.MustCompile(`(^|\s)` + flag + `(\s|$)`).MatchString(scr) {
			t.Errorf("after q the terminal lacks %s:\n%s", flag, scr)
		}
	}
}

// The REPL's replay opens the same view and q comes back to the prompt.
func TestReplayTmuxREPL(t *testing.T) {
	needTmux(t)
	ts := startTmux(t, 120, 40)
	ts.waitFor(`sim fix2025>`)
	ts.start("replay captures/testdata/nfs4.1-rdma.pcap", `replay frame 0/817`)
	ts.keys("n")
	ts.waitFor(`replay frame 4/817 · RPC 1/50`)
	ts.keys("q")
	ts.waitFor(`sim fix2025> replay captures/testdata/nfs4.1-rdma.pcap\n(.*\n)*sim fix2025>`)
	ts.run("replay captures/testdata/nfs4.1-rdma.pcap --rpc", `RPC 50 of 50  xid`)
}

// replay - transcribes the capture from standard input as it comes: the
// same transcript as the file's, with standard input named where the
// file's name was.
func TestReplayStandardInput(t *testing.T) {
	const file = "captures/testdata/nfs3-rdma.pcap"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--text"}, {"--rpc", "-v"}, {"--json"}} {
		var want, got, errb bytes.Buffer
		if code := run(append(append([]string{"replay"}, args...), file), nil, &want, &errb); code != exitOK {
			t.Fatalf("replay %v %s: exit %d\n%s", args, file, code, errb.String())
		}
		code := run(append(append([]string{"replay"}, args...), "-"), io.MultiReader(bytes.NewReader(data)), &got, &errb)
		if code != exitOK || got.Len() == 0 || got.String() != strings.ReplaceAll(want.String(), file, "standard input") {
			t.Errorf("replay %v - : exit %d, %d bytes, not the file's transcript (%d bytes)\n%s", args, code, got.Len(), want.Len(), errb.String())
		}
	}
}
