package repl

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func texts(ss []Suggestion) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Text
	}
	return out
}

func has(ss []Suggestion, text string) bool {
	for _, s := range ss {
		if s.Text == text {
			return true
		}
	}
	return false
}

func TestComplete(t *testing.T) {
	s := newTestSession(t)
	if err := s.Exec("write 4096", Pos{}, io.Discard); err != nil {
		t.Fatal(err)
	}
	s.Refresh()
	for _, tc := range []struct {
		before string
		want   []string // must be offered
		not    []string // must not be
	}{
		{"", []string{"write", "show", "complete", "help"}, nil},
		{"wr", []string{"write"}, []string{"read"}},
		{"show ", []string{"sgl", "positions", "chunks", "settings"}, nil},
		{"show s", []string{"sgl", "sq", "settings", "snapshot", "segment"}, []string{"cq"}},
		{"show chunks ", []string{"0x5eed0010"}, nil},
		{"show segment ", []string{"0x5eed0010/0"}, nil},
		{"show sq ", []string{"--json"}, nil},
		{"set ", []string{"page_size", "profile", "B4", "threads", "auto_complete"}, nil},
		{"set pro", []string{"profile"}, []string{"page_size"}},
		{"set profile ", []string{"seed", "fix2025", "new2026"}, nil},
		{"set B4 ", []string{"on", "off", "default"}, nil},
		{"set auto_complete ", []string{"on", "off"}, nil},
		{"complete ", []string{"all", "--status"}, nil},
		{"complete --status ", []string{"REM_ACCESS_ERR", "WR_FLUSH_ERR", "SUCCESS"}, nil},
		{"complete --status REM_", []string{"REM_ACCESS_ERR", "REM_OP_ERR"}, []string{"SUCCESS"}},
		{"complete --status=WR", []string{"WR_FLUSH_ERR"}, nil},
		{"complete --st", []string{"--status"}, nil},
		{"fail 1 ", []string{"RETRY_EXC_ERR"}, nil},
		{"recv ", []string{"nfsd0"}, nil},
		{"step --thread ", []string{"nfsd0"}, nil},
		{"thread ", []string{"nfsd0", "none"}, nil},
		{"until svc_rdma_build", []string{"svc_rdma_build_read_segment", "svc_rdma_build_writes"}, nil},
		{"until ", []string{"rpcrdma_marshal_req"}, nil}, // seen in this session's events
		{"inject ", []string{"rw_ctxt", "dma_map", "write_info", "send_ctxt"}, nil},
		{"engine ", []string{"sim", "ibv"}, nil},
		{"learn ", []string{"first-write", "first-read"}, nil},
		{"help ", []string{"tour", "write", "show"}, nil},
		{"help show ", []string{"sgl"}, nil},
		{"write ", []string{"4096", "1M", "--segments", "--inline"}, nil},
		{"write 4096 --segments ", []string{"2"}, nil},
		{"write 4096 --inline --", []string{"--segments"}, []string{"--inline"}},
		{"call --read ", []string{"data:4096"}, nil},
		{"call --read data:4096 --", []string{"--read", "--write", "--reply"}, nil},
		{"trace ", []string{"on", "off"}, nil},
		{"WRITE", nil, nil},
		{"bogus ", nil, nil},
		{"write 4096 # comm", nil, []string{"write"}},
	} {
		got := s.Complete(tc.before)
		for _, w := range tc.want {
			if !has(got, w) {
				t.Errorf("%q: %q not offered (got %q)", tc.before, w, texts(got))
			}
		}
		for _, w := range tc.not {
			if has(got, w) {
				t.Errorf("%q: %q offered", tc.before, w)
			}
		}
		for _, sg := range got {
			if sg.Desc == "" && !isNumeric(sg.Text) {
				t.Errorf("%q: %q has no description", tc.before, sg.Text)
			}
		}
	}
}

func isNumeric(s string) bool {
	return strings.Trim(s, "0123456789kKmMx:,@data") == ""
}

func TestCompletePaths(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "lessons"), 0o755)
	os.WriteFile(filepath.Join(dir, "warmup.rdl"), []byte("help\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lessons", "race.rdl"), []byte("help\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".hidden"), nil, 0o644)
	s, err := NewSession(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := texts(s.Complete("source ")); strings.Join(got, " ") != "lessons/ warmup.rdl" {
		t.Errorf("source: %q", got)
	}
	if got := texts(s.Complete("source les")); strings.Join(got, " ") != "lessons/" {
		t.Errorf("source les: %q", got)
	}
	if got := texts(s.Complete("source lessons/")); strings.Join(got, " ") != "lessons/race.rdl" {
		t.Errorf("source lessons/: %q", got)
	}
	if got := texts(s.Complete("source .")); strings.Join(got, " ") != ".hidden" {
		t.Errorf("source .: %q", got)
	}
}

// The completer reads the snapshot: it must not move the lab.
func TestCompleteDoesNotStep(t *testing.T) {
	s := newTestSession(t)
	s.Exec("write 4096", Pos{}, io.Discard)
	s.Exec("complete", Pos{}, io.Discard)
	s.Refresh()
	before := s.lab.Last().Seq
	pending := len(s.lab.Pending())
	for _, l := range []string{"", "s", "show ", "recv ", "until ", "show segment ", "set B4 "} {
		s.Complete(l)
	}
	if s.lab.Last().Seq != before || len(s.lab.Pending()) != pending {
		t.Error("completion moved the lab")
	}
}

func BenchmarkComplete(b *testing.B) {
	s := newTestSession(b)
	s.Exec("write 4096", Pos{}, io.Discard)
	s.Refresh()
	lines := []string{"", "sh", "show s", "set ", "complete --status R", "until svc_rdma_b", "recv "}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.Complete(lines[i%len(lines)])
	}
}
