package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gzipBomb writes a pcap header and mib MiB of zeros (empty records) as
// gzip members, a few KB, and returns its path.
func gzipBomb(t *testing.T, mib int) string {
	t.Helper()
	member := func(b []byte) []byte {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	hdr := binary.LittleEndian.AppendUint32(nil, 0xa1b2c3d4)
	hdr = binary.LittleEndian.AppendUint16(hdr, 2)
	hdr = binary.LittleEndian.AppendUint16(hdr, 4)
	hdr = append(hdr, make([]byte, 8)...)
	hdr = binary.LittleEndian.AppendUint32(hdr, 262144)
	hdr = binary.LittleEndian.AppendUint32(hdr, 1)
	data, zeros := member(hdr), member(make([]byte, 1<<20))
	for range mib {
		data = append(data, zeros...)
	}
	path := filepath.Join(t.TempDir(), "bomb.pcap.gz")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// truncatedGzip writes the first half of nfs3-rdma.pcap, gzip-compressed.
func truncatedGzip(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("captures/testdata/nfs3-rdma.pcap")
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	path := filepath.Join(t.TempDir(), "cut.pcap.gz")
	if err := os.WriteFile(path, z.Bytes()[:z.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// --max-expand on every command that reads a capture: a run that stops
// at the limit prints what it read, then says so, and exits 1.
func TestMaxExpandCommandLine(t *testing.T) {
	bomb := gzipBomb(t, 64)
	const stop = "bomb.pcap.gz: frame 4097, uncompressed offset 65560: gzip data expands past 1 MiB at compressed offset "
	for _, tc := range []struct {
		name   string
		args   []string
		status int
		lines  int    // of stdout, -1: any
		err    string // in stderr
	}{
		{"decode", []string{"decode", "--max-expand", "1M", bomb}, exitFailed, 4096, stop},
		{"decode --check", []string{"decode", "--check", bomb, "--max-expand=1M"}, exitFailed, 4097, stop},
		{"replay", []string{"replay", "--text", "--max-expand", "1M", bomb}, exitFailed, 0, stop},
		{"decode, bad size", []string{"decode", "--max-expand", "lots", bomb}, exitUsage, 0, `size "lots"`},
		{"replay, bad size", []string{"replay", "--max-expand", "0", bomb}, exitUsage, 0, `size "0"`},
		{"view without --capture", []string{"view", "--max-expand", "1G"}, exitUsage, 0, "--max-expand goes with --capture"},
		{"view, no terminal", []string{"view", "--capture", bomb, "--max-expand", "1G"}, exitUsage, 0, "needs a terminal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if got := run(tc.args, nil, &out, &errb); got != tc.status {
				t.Errorf("exit status %d, want %d; stderr %q", got, tc.status, errb.String())
			}
			if n := strings.Count(out.String(), "\n"); tc.lines >= 0 && n != tc.lines {
				t.Errorf("%d lines of output, want %d", n, tc.lines)
			}
			if !strings.Contains(errb.String(), tc.err) || (tc.err == stop && !strings.Contains(errb.String(), "--max-expand SIZE raises")) {
				t.Errorf("stderr %q lacks %q", errb.String(), tc.err)
			}
		})
	}
}

// view --capture on a damaged gzip file says where it ends, as decode
// does; on a bomb it stops at --max-expand; its decompressed copy is
// never seen in the temporary directory.
func TestTmuxViewCaptureLimits(t *testing.T) {
	needTmux(t)
	tmp := t.TempDir()
	for _, tc := range []struct {
		name, want string
		args       []string
	}{
		{"truncated", `stopped after 3\d\d packets: .*cut\.pcap\.gz: frame 3\d\d, uncompressed offset \d+: file ends inside`,
			[]string{"view", "--capture", truncatedGzip(t)}},
		{"bomb", `stopped after 4,096 packets: .*bomb\.pcap\.gz: frame 4097, uncompressed offset 65560: gzip data expands past 1 MiB`,
			[]string{"view", "--max-expand", "1M", "--capture", gzipBomb(t, 64)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startTmuxCmd(t, 250, 40, []string{"TMPDIR=" + tmp}, tc.args)
			ts.waitFor(tc.want)
			if es, _ := os.ReadDir(tmp); len(es) > 0 {
				t.Errorf("%s holds %v while the view runs", tmp, es)
			}
			ts.keys("q")
			ts.waitFor(`EXITED 0`)
			if es, _ := os.ReadDir(tmp); len(es) > 0 {
				t.Errorf("%s holds %v after the view", tmp, es)
			}
		})
	}
}
