package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

// readmeBlocks are the code blocks of the README's section titled title.
func readmeBlocks(t *testing.T, title string) [][]string {
	t.Helper()
	b := testutil.ReadFile(t, "README.md")
	_, sec, ok := strings.Cut(string(b), "\n### "+title+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", title)
	}
	if i := strings.Index(sec, "\n#"); i >= 0 {
		sec = sec[:i]
	}
	var blocks [][]string
	parts := strings.Split(sec, "```")
	for i := 1; i < len(parts); i += 2 {
		blocks = append(blocks, strings.Split(strings.TrimSpace(parts[i]), "\n"))
	}
	return blocks
}

// noTimes drops the time column of decode's lines and the latencies of
// --rpc: what a live capture has of its own.
var timeCol = regexp.MustCompile(`(?m)^( *\d+) +\d+\.\d+ |latency [0-9.]+ ms`)

func noTimes(s string) string { return timeCol.ReplaceAllString(s, "$1 ") }

// The README's live capture and --follow examples do what it says, run as
// written in the test's network namespace with eth0 its veth end, the
// simulator's frames sent through: each prints the frames' lines (or
// RPCs) as decoding the capture file does, Ctrl-C ends it with status 0,
// and -w leaves its file.
func TestReadmeLiveExamples(t *testing.T) {
	needNetns(t)
	if _, err := exec.LookPath("tcpdump"); err != nil {
		if os.Getenv("RDMALAB_REQUIRE_TOOLS") == "1" {
			t.Fatal("tcpdump is not installed, and RDMALAB_REQUIRE_TOOLS=1 requires it (apt-get install tcpdump)")
		}
		t.Skip("tcpdump is not installed: skipping the README's live examples (set RDMALAB_REQUIRE_TOOLS=1 to make this a failure)")
	}
	bin, err := exec.LookPath("rdmalab")
	if err != nil {
		t.Fatal(err)
	}
	ns := vethNetns(t)
	capture, err := filepath.Abs(filepath.Join("captures", "testdata", "sim-nfs3.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	lines := noTimes(decodeFile(t, capture))
	blocks := readmeBlocks(t, "Pipes, live capture, files that grow")
	if len(blocks) != 2 {
		t.Fatalf("the section has %d code blocks, the test knows 2", len(blocks))
	}
	// decode --help's examples of these are the README's, tested here.
	var help bytes.Buffer
	run([]string{"decode", "--help"}, strings.NewReader(""), &help, &help)
	for _, l := range strings.Split(help.String(), "\n") {
		for _, cmd := range []string{"tcpdump -i", "rdmalab decode -i"} {
			i := strings.Index(l, cmd)
			if i < 0 || strings.Contains(l[:i], "(") || strings.Contains(l, "IFACE") {
				continue
			}
			ex := strings.TrimSuffix(strings.TrimSpace(l[i:]), ")")
			if !slices.Contains(blocks[0], ex) && !slices.Contains(blocks[1], ex) {
				t.Errorf("decode --help's example %q is not one of the README's, which this test runs", ex)
			}
		}
	}
	var scripts []string
	scripts = append(scripts, blocks[0]...)
	// The second block is one session: tcpdump starts writing, then
	// decode follows its file (given a moment to create it).
	scripts = append(scripts, strings.Join(blocks[1], "\nsleep 1\n"))
	for _, script := range scripts {
		t.Run(script, func(t *testing.T) {
			dir := t.TempDir()
			script := strings.ReplaceAll(script, "eth0", "vb")
			// The shell outlives Ctrl-C as an interactive one does, and
			// says how the last command ended.
			cmd := exec.Command("ip", "netns", "exec", ns, "sh", "-c", "trap : INT\n"+script)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var out, errb syncBuffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
			// Each capturing program says when it has started.
			var markers []string
			if strings.Contains(script, "tcpdump") {
				markers = append(markers, "listening on vb")
			}
			if strings.Contains(script, "decode -i") {
				markers = append(markers, "capturing on vb")
			}
			deadline := time.Now().Add(15 * time.Second)
			for _, m := range markers {
				for !strings.Contains(errb.String(), m) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
			}
			time.Sleep(1500 * time.Millisecond) // --follow's sleep, and the pipe's reader
			sendFrames(t, ns, "va", capture)
			if strings.Contains(script, "tcpdump") {
				// tcpdump reads its ring a block at a time: by a second's
				// timeout when the block is not full.
				time.Sleep(2500 * time.Millisecond)
			}
			// Wait until the output stops growing, then Ctrl-C the pipeline.
			// (decode - into a pipe writes when its buffer fills, or at the end.)
			for last := -1; time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
				if n := len(out.String()); n == last {
					break
				} else {
					last = n
				}
			}
			syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%s: %v; stderr:\n%s", script, err, errb.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s did not end at Ctrl-C; stderr:\n%s", script, errb.String())
			}
			want := lines
			if strings.Contains(script, "--rpc") {
				want = noTimes(decodeFile(t, "--rpc", capture))
			}
			if got := noTimes(out.String()); got != want {
				t.Errorf("%s:\n%s\nstderr:\n%s", script, firstDiff(got, want), errb.String())
			}
			if strings.Contains(script, "-w out.pcapng") {
				if got := noTimes(decodeFile(t, filepath.Join(dir, "out.pcapng"))); got != lines {
					t.Errorf("out.pcapng:\n%s", firstDiff(got, lines))
				}
			}
		})
	}
}
