package repl

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/lessons"
)

// seedFuncs are the functions the seed svc_rdma_rw.c defines: every one
// must be exercised by a shipped lesson. TestSeedFuncsListed keeps the
// list honest against the seed file when ../shared is there.
var seedFuncs = []string{
	"__svc_rdma_put_rw_ctxt", "svc_rdma_build_read_chunk", "svc_rdma_build_read_segment",
	"svc_rdma_build_writes", "svc_rdma_cc_init", "svc_rdma_cc_release", "svc_rdma_clear_rqst_pages",
	"svc_rdma_copy_inline_range", "svc_rdma_destroy_rw_ctxts", "svc_rdma_get_rw_ctxt", "svc_rdma_iov_write",
	"svc_rdma_next_ctxt", "svc_rdma_pagelist_to_sg", "svc_rdma_pages_write", "svc_rdma_post_chunk_ctxt",
	"svc_rdma_prepare_reply_chunk", "svc_rdma_process_read_list", "svc_rdma_put_rw_ctxt",
	"svc_rdma_read_call_chunk", "svc_rdma_read_chunk_range", "svc_rdma_read_data_item",
	"svc_rdma_read_multiple_chunks", "svc_rdma_read_special", "svc_rdma_reply_chunk_release",
	"svc_rdma_reply_done", "svc_rdma_rw_ctx_init", "svc_rdma_send_write_chunk", "svc_rdma_send_write_list",
	"svc_rdma_vec_to_sg", "svc_rdma_wc_read_done", "svc_rdma_write_done", "svc_rdma_write_info_alloc",
	"svc_rdma_write_info_free", "svc_rdma_write_info_free_async", "svc_rdma_xb_write",
}

// notRaised are seed functions no event can show, and why; a lesson must
// name each in its prose instead.
var notRaised = map[string]string{
	"svc_rdma_next_ctxt":  "an inline list accessor: svc_rdma_cc_release's loop, where the model raises __svc_rdma_put_rw_ctxt per ctxt",
	"svc_rdma_reply_done": "never called: the Reply chunk's WRs are chained ahead of the Send and none is signaled",
}

func TestSeedFuncsListed(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(testutil.SharedDir(t), "seeds", "svc_rdma_rw.c.txt"))
	if err != nil {
		t.Skip("the seed file is not here (../shared/seeds): the list stands as written")
	}
	text := strings.ReplaceAll(string(src), "\u00a0", " ")
	def := regexp.MustCompile(`(?m)^(?:[a-z_]+[ \t*]+)*\*?([a-z_0-9]+)\([^;{]*?\)\s*\{`)
	var got []string
	for _, m := range def.FindAllStringSubmatch(text, -1) {
		got = append(got, m[1])
	}
	sort.Strings(got)
	want := slices.Clone(seedFuncs)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("the seed defines %v\nthe list says %v", got, want)
	}
}

// stepRecord is what one step of a lesson raised.
type stepRecord struct {
	lesson, command string
	events          []trace.Event
}

// recorder is a lessons.Machine that keeps every step's events.
type recorder struct {
	lessons.Machine
	lesson string
	steps  *[]stepRecord
}

func (r recorder) Exec(line string, at lessons.Pos) lessons.Result {
	res := r.Machine.Exec(line, at)
	*r.steps = append(*r.steps, stepRecord{r.lesson, line, res.Events})
	return res
}

// runShippedLessons runs every shipped lesson and returns each step's
// events, and the lessons' text.
func runShippedLessons(t *testing.T) ([]stepRecord, string) {
	t.Helper()
	var steps []stepRecord
	var text strings.Builder
	s := newTestSession(t)
	for _, e := range s.lessonCatalog().Entries() {
		if e.Err != nil {
			t.Fatalf("%v", e.Err)
		}
		data, _ := os.ReadFile("../lessons/" + e.File)
		text.Write(data)
		ls := newTestSession(t)
		run, err := ls.beginLesson(e, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		m := recorder{run.machine, e.Lesson.Name, &steps}
		if err := lessons.CheckLesson(e.Lesson, m, nil); err != nil {
			t.Errorf("%v", err)
		}
		run.end(ls)
	}
	return steps, text.String()
}

// Every function of the seed and every rule of the reply-position patch
// shows in at least one shipped lesson, from the events the lessons raise.
func TestLessonsCoverTheSeedAndThePatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every shipped lesson")
	}
	steps, text := runShippedLessons(t)
	raised := map[string]bool{}
	for _, st := range steps {
		for _, e := range st.events {
			raised[e.Func] = true
		}
	}
	for _, f := range seedFuncs {
		if raised[f] {
			continue
		}
		if why, ok := notRaised[f]; ok {
			if !strings.Contains(text, f) {
				t.Errorf("%s (%s) is named by no lesson", f, why)
			}
			continue
		}
		t.Errorf("no lesson raises %s", f)
	}

	arg := func(e trace.Event, k string) string {
		for _, a := range e.Args {
			if a.Key == k {
				return a.Val
			}
		}
		return ""
	}
	// has reports whether some step raised events matching every predicate.
	has := func(preds ...func(trace.Event) bool) bool {
		for _, st := range steps {
			ok := true
			for _, p := range preds {
				if !slices.ContainsFunc(st.events, p) {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
		return false
	}
	fn := func(name string) func(trace.Event) bool {
		return func(e trace.Event) bool { return e.Func == name }
	}
	for _, r := range []struct {
		rule string
		ok   bool
	}{
		{"P1: an RDMA_ERROR's Send takes a post sequence number too",
			has(fn("svc_rdma_send_error_msg"), fn("sc_post_seq"))},
		{"P2: the sequence number is taken under sc_post_lock, and a thread waits for it",
			has(func(e trace.Event) bool { return e.Func == "sc_post_seq" && arg(e, "locked") == "true" }) &&
				has(func(e trace.Event) bool { return e.Kind == trace.Wait && strings.Contains(e.Func, "sc_post_lock") })},
		{"P2 (teaching mode): without the lock, a Send posts out of sequence order",
			has(func(e trace.Event) bool { return e.Func == "sc_post_seq" && arg(e, "locked") == "false" })},
		{"P3: the send ctxt carries its position (sc_pos)",
			has(func(e trace.Event) bool {
				return e.Func == "sc_post_seq" && arg(e, "sc_pos") != "" && arg(e, "sc_pos") == arg(e, "seq")
			})},
		{"P4: rq_reply_pos is written for an accepted reply",
			has(fn("rq_reply_pos"))},
		{"P4: a rejected post takes a number and leaves rq_reply_pos at 0",
			has(fn("sc_post_seq"), func(e trace.Event) bool { return e.Func == "ib_post_send" && strings.Contains(e.Text, "rejects") }) &&
				!has(fn("sc_post_seq"), func(e trace.Event) bool { return e.Func == "ib_post_send" && strings.Contains(e.Text, "rejects") }, fn("rq_reply_pos"))},
		{"P5: a successful Send completion advances xpt_acked_pos",
			has(fn("svc_xprt_advance_acked"))},
		{"P5: a flushed Send completion does not",
			has(func(e trace.Event) bool {
				return e.Func == "svc_rdma_wc_send" && e.Kind == trace.Call && arg(e, "status") != "" && arg(e, "status") != "SUCCESS"
			})},
		{"DRC: the reply-sent hook records the position",
			has(fn("nfsd_cache_reply_sent"))},
		{"DRC: an acknowledged entry is evicted",
			has(fn("nfsd_cache_evict"))},
	} {
		if !r.ok {
			t.Errorf("no lesson shows %s", r.rule)
		}
	}
}

// The shipped lessons ask for nothing a lesson may not do, and each
// starts from a fresh lab.
func TestShippedLessonsStartFresh(t *testing.T) {
	s := newTestSession(t)
	for _, e := range s.lessonCatalog().Entries() {
		if e.Err != nil {
			t.Errorf("%v", e.Err)
			continue
		}
		if e.Lesson.KeepLab != "" {
			t.Errorf("%s keeps the lab (%s): shipped lessons start fresh", e.Lesson.Name, e.Lesson.KeepLab)
		}
	}
	if n := len(s.lessonCatalog().Entries()); n < 16 {
		t.Errorf("%d shipped lessons, want at least 16", n)
	}
}

// A lesson file cannot reach outside its folder or run what a lesson may
// not: each refusal names the line and column.
func TestLessonValidator(t *testing.T) {
	s := newTestSession(t)
	for _, c := range []struct{ line, want string }{
		{"source /etc/passwd", "1: source cannot run in a lesson"},
		{"quit", "1: quit cannot run in a lesson"},
		{"view", "1: view cannot run in a lesson"},
		{"save /tmp/x.json", `6: file "/tmp/x.json": a lesson names files in its own folder`},
		{"capture save ../x.pcap", `14: file "../x.pcap": a lesson names files in its own folder`},
		{"capture open sub/x.pcap --json", `14: file "sub/x.pcap"`},
		{"wirte 100", "1: unknown command"},
		{"write 10000 --frob", "7: "},
	} {
		col, err := s.validateLessonLine(c.line)
		got := ""
		if err != nil {
			got = strings.TrimSpace(strings.SplitN(err.Error(), "\n", 2)[0])
		}
		if err == nil || !strings.HasPrefix(c.want, strconv.Itoa(col)+":") || !strings.Contains(strconv.Itoa(col)+": "+got, c.want) {
			t.Errorf("%q: column %d, %v; want %q", c.line, col, err, c.want)
		}
	}
	for _, ok := range []string{"write 10000", "capture save write.pcap", "set threads 2", "call --read data:4096 --reply 4096"} {
		if _, err := s.validateLessonLine(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}

// Every event the shipped lessons raise from the model's tasks names a
// function or trace point engine/kernel declares traced, and carries only
// the argument keys it declares: the declarations say what events hold.
func TestLessonEventsDeclared(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every shipped lesson")
	}
	steps, _ := runShippedLessons(t)
	seen := map[string]bool{}
	for _, st := range steps {
		for _, e := range st.events {
			if e.Kind != trace.Call && e.Kind != trace.Return && e.Kind != trace.Point {
				continue
			}
			f, ok := kernel.Lookup(e.Func)
			if !ok || !f.Traced() {
				t.Errorf("%s: %s: %v names no traced function of engine/kernel", st.lesson, st.command, e)
				continue
			}
			seen[e.Func] = true
			for _, a := range e.Args {
				if !f.HasArg(a.Key) {
					t.Errorf("%s: %s: %v carries %s, which %s does not declare", st.lesson, st.command, e, a.Key, f.Name())
				}
			}
		}
	}
	if len(seen) < 80 {
		t.Errorf("the lessons raised only %d functions", len(seen))
	}
}
