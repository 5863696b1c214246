package lessons

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine/trace"
)

// fakeMachine answers each command from a table and counts resets.
type fakeMachine struct {
	state    string // JSON
	results  map[string]Result
	ran      []string
	resets   int
	settings []Setting
}

func (f *fakeMachine) Reset(s []Setting) error {
	f.resets++
	f.settings = s
	f.ran = nil
	for _, x := range s {
		if x.Value == "bad" {
			return fmt.Errorf("%s: bad value", x.Name)
		}
	}
	return nil
}

func (f *fakeMachine) Exec(line string, _ Pos) Result {
	f.ran = append(f.ran, line)
	return f.results[line]
}

func (f *fakeMachine) State() (any, error) {
	d := json.NewDecoder(strings.NewReader(f.state))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func (f *fakeMachine) PageByte(page string, off int) (byte, string, error) {
	if page != "pg1" || off >= 8 {
		return 0, "", fmt.Errorf("%s[%d]: no such byte", page, off)
	}
	return "ABCDEFGH"[off], "inline", nil
}

const fakeState = `{"calls":[{"xid":"0x5eed0010","state":"answered","label":"WRITE",
"segments":[{"kind":"read chunk 0","handle":"0x49cd25f0","length":10000,"offset":"0x11ed76e83000"}]},{"xid":"0x5eed0011","state":"sent"}],
"chains":[{"wrs":[{"rkey":"0x49cd25f0","remote_addr":"0x11ed76e84000","bytes":10000}]}],
"positions":{"sc_post_seq":2,"xpt_acked_pos":1},"threads":[{"name":"nfsd0","state":"idle"},{"name":"nfsd1","state":"running"}],
"settings":{"profile":"fix2025"},"empty":[],"none":null,"flag":true}`

func lessonWith(t *testing.T, block string) *Lesson {
	t.Helper()
	l, err := Parse("t.md", []byte("---\nname: t\ntitle: T\nsummary: s\nlevel: beginner\n---\n```rdmalab\n"+block+"```\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestChecksHoldAndFailInPlainWords(t *testing.T) {
	m := &fakeMachine{state: fakeState, results: map[string]Result{
		"go": {Output: "delivered 1 operation(s)\n", Events: []trace.Event{
			{Kind: trace.Call, Func: "svc_rdma_wc_send"},
			{Kind: trace.Return, Func: "svc_rdma_copy_inline_range", Err: "-EINVAL"},
			{Kind: trace.Fault, Func: "heap overflow", Text: "12420 bytes past the buffer"},
		}},
		"bad": {Err: errors.New("EINVAL: a malformed chunk list")},
	}}
	for _, c := range []struct {
		cmd, check string
		ok         bool
		say        string
	}{
		{"go", "positions.xpt_acked_pos == 1", true, "positions.xpt_acked_pos is 1"},
		{"go", "positions.xpt_acked_pos == 2", false, "positions.xpt_acked_pos is 1, expected 2"},
		{"go", "positions.sc_post_seq >= 2", true, "positions.sc_post_seq is 2"},
		{"go", "positions.sc_post_seq < 2", false, "positions.sc_post_seq is 2, expected < 2"},
		{"go", "positions.xpt_acked_pos != 0", true, ""},
		{"go", "calls[0].state == answered", true, `calls[0].state is "answered"`},
		{"go", "calls[-1].state == \"sent\"", true, ""},
		{"go", "calls[5].state == sent", false, "calls[5]: the list has 2 entries"},
		{"go", "calls[xid=0x5eed0011].state == sent", true, ""},
		{"go", "calls[0].xid == 0x5eed0010", true, ""},
		{"go", "calls[0].xid == \"5eed0010\"", false, ""},
		{"go", "threads[name=nfsd1].state == running", true, ""},
		{"go", "threads[name=nfsd9].state == running", false, "threads[name=nfsd9]: no entry with name=nfsd9"},
		{"go", "len(calls) == 2", true, "calls has 2 entries"},
		{"go", "len(empty) == 0", true, ""},
		{"go", "len(none) == 0", true, ""},
		{"go", "calls[0].label contains WR", true, ""},
		{"go", "settings.profile != seed", true, ""},
		{"go", "flag", true, ""},
		{"go", "empty", false, "empty is a list of 0, expected something there"},
		{"go", "positions.nothing == 1", false, `positions.nothing: no field "nothing"`},
		{"go", "calls.state == 1", false, "calls.state: calls is not an object"},
		{"go", "calls[0].state > 1", false, `calls[0].state is "answered", not a number`},
		// A value that is another path of the state: what holds on any engine.
		{"go", "chains[0].wrs[0].rkey == calls[0].segments[0].handle", true, `chains[0].wrs[0].rkey is "0x49cd25f0"`},
		{"go", "chains[0].wrs[0].remote_addr == calls[0].segments[0].offset", false,
			`chains[0].wrs[0].remote_addr is "0x11ed76e84000", expected "0x11ed76e83000" (calls[0].segments[0].offset)`},
		{"go", "chains[0].wrs[0].bytes == calls[0].segments[0].length", true, ""},
		{"go", "chains[0].wrs[0].bytes < calls[0].segments[0].length", false, "chains[0].wrs[0].bytes is 10000, expected < 10000 (calls[0].segments[0].length)"},
		{"go", "positions.sc_post_seq > positions.xpt_acked_pos", true, ""},
		{"go", "calls[0].label contains calls[0].segments[0].kind", false, `calls[0].label is "WRITE", which does not contain "read chunk 0" (calls[0].segments[0].kind)`},
		{"go", "chains[0].wrs[0].rkey == calls[1].segments[0].handle", false, `calls[1].segments: no field "segments"`},
		{"go", "chains[0].wrs[0].rkey == calls[0].segments", false, "calls[0].segments is a list of 1, not a value to compare with"},
		{"go", "event svc_rdma_wc_send", true, "svc_rdma_wc_send ran"},
		{"go", "event svc_rdma_wc_receive", false, "svc_rdma_wc_receive did not run in this step"},
		{"go", "no event svc_rdma_wc_receive", true, "svc_rdma_wc_receive did not run"},
		{"go", "no event svc_rdma_wc_send", false, "svc_rdma_wc_send ran, and this step expected it not to"},
		{"go", "errno EINVAL", true, "svc_rdma_copy_inline_range returned -EINVAL"},
		{"go", "errno -EINVAL from svc_rdma_copy_inline_range", true, ""},
		{"go", "errno EINVAL from svc_rdma_build_read_segment", false, "svc_rdma_build_read_segment did not return -EINVAL in this step"},
		{"go", "errno ENOMEM", false, "no function returned -ENOMEM in this step"},
		{"go", "fault heap overflow", true, "the kernel would fault here: heap overflow: 12420 bytes past the buffer"},
		{"go", "fault BUG_ON", false, `no kernel fault mentioning "BUG_ON" in this step`},
		{"go", "fault 12420 bytes", true, ""},
		{"go", "no errno ENOMEM", true, "no function returned -ENOMEM"},
		{"go", "no errno EINVAL", false, "svc_rdma_copy_inline_range returned -EINVAL, and this step expected no function to"},
		{"go", "no errno EINVAL from svc_rdma_build_read_segment", true, "svc_rdma_build_read_segment did not return -EINVAL"},
		{"go", "output \"delivered 1\"", true, ""},
		{"go", "output delivered 2", false, `the output does not say "delivered 2"`},
		{"go", "byte pg1[0] == 'A'", true, "pg1[0] holds 0x41"},
		{"go", "byte pg1[1] == 0x41", false, "pg1[1] holds 0x42, expected == 0x41"},
		{"go", "byte pg1[1] != 65", true, ""},
		{"go", "byte pg9[0] == 0", false, "pg9[0]: no such byte"},
		{"go", "source pg1[3] == inline", true, `pg1[3] came from "inline"`},
		{"go", "error", false, "the command succeeded, and this step expected it to fail"},
		{"bad", "error malformed", true, "the command failed as expected: EINVAL: a malformed chunk list"},
		{"bad", "error \"no such\"", false, ""},
	} {
		l := lessonWith(t, c.cmd+"\nexpect "+c.check+"\n")
		tu, err := NewTutor(l, m)
		if err != nil {
			t.Fatal(err)
		}
		_, v := tu.Run()
		last := v[len(v)-1]
		if last.OK != c.ok || c.say != "" && last.Say != c.say {
			t.Errorf("expect %s: ok=%v %q, want ok=%v %q", c.check, last.OK, last.Say, c.ok, c.say)
		}
	}
}

func TestAFailingCommandFailsTheStepUnlessExpected(t *testing.T) {
	m := &fakeMachine{state: fakeState, results: map[string]Result{"bad": {Err: errors.New("EINVAL: nope")}}}
	err := CheckLesson(lessonWith(t, "bad\n"), m, nil)
	var ce *CheckError
	if !errors.As(err, &ce) || ce.Pos != (Pos{"t.md", 8, 1}) || ce.Say != "the command failed: EINVAL: nope" {
		t.Errorf("got %v", err)
	}
	if err := CheckLesson(lessonWith(t, "bad\nexpect error EINVAL\n"), m, nil); err != nil {
		t.Errorf("an expected error: %v", err)
	}
}

func TestCheckLessonStopsAtTheFirstUnmetCheck(t *testing.T) {
	m := &fakeMachine{state: fakeState, results: map[string]Result{}}
	l := lessonWith(t, "a\nexpect len(calls) == 2\nb\nexpect positions.xpt_acked_pos == 9\nhint Complete the Send first.\nc\n")
	var steps []string
	err := CheckLesson(l, m, func(st *Step, _ Result, _ []Verdict) { steps = append(steps, st.Command) })
	var ce *CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v", err)
	}
	if ce.Error() != "t.md:11:8: positions.xpt_acked_pos is 1, expected 9 (hint: Complete the Send first.)" || ce.Step != 1 {
		t.Errorf("got %q step %d", ce, ce.Step)
	}
	if strings.Join(steps, ",") != "a,b" || strings.Join(m.ran, ",") != "a,b" {
		t.Errorf("ran %v, reported %v; want it to stop after b", m.ran, steps)
	}
}

func TestTutorResetsSkipsAndGoesBack(t *testing.T) {
	m := &fakeMachine{state: fakeState, results: map[string]Result{}}
	text := "---\nname: t\ntitle: T\nsummary: s\nlevel: beginner\nprofile: seed\nsettings:\n  threads: 2\n---\n```rdmalab\na\nb\nc\n```\n"
	l, err := Parse("t.md", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	tu, err := NewTutor(l, m)
	if err != nil {
		t.Fatal(err)
	}
	if m.resets != 1 || fmt.Sprint(m.settings) != "[{profile seed 6} {threads 2 8}]" {
		t.Errorf("reset %d times with %v", m.resets, m.settings)
	}
	tu.Run()
	tu.Skip()
	if tu.Index() != 2 || tu.Skipped != 1 {
		t.Errorf("at %d, skipped %d", tu.Index(), tu.Skipped)
	}
	if err := tu.Back(); err != nil {
		t.Fatal(err)
	}
	// Back from step 2 is step 1: a fresh lab that ran step 0 again.
	if tu.Index() != 1 || m.resets != 2 || strings.Join(m.ran, ",") != "a" || tu.Skipped != 0 {
		t.Errorf("after back: at %d, resets %d, ran %v, skipped %d", tu.Index(), m.resets, m.ran, tu.Skipped)
	}
	tu.Run()
	tu.Run()
	if !tu.Done() || !tu.Passed() || tu.Current() != nil {
		t.Errorf("done %v passed %v", tu.Done(), tu.Passed())
	}
	for tu.Index() > 0 {
		if err := tu.Back(); err != nil {
			t.Fatal(err)
		}
	}
	if err := tu.Back(); err == nil || err.Error() != "already at the first step" {
		t.Errorf("back at the start: %v", err)
	}

	m.results = nil
	bad := strings.Replace(text, "threads: 2", "threads: bad", 1)
	l, _ = Parse("t.md", []byte(bad), nil)
	if _, err := NewTutor(l, m); err == nil || !strings.Contains(err.Error(), "t.md: the lesson's settings: threads: bad value") {
		t.Errorf("bad setting: %v", err)
	}
}

func TestKeepLabDoesNotReset(t *testing.T) {
	m := &fakeMachine{state: fakeState}
	l, err := Parse("t.md", []byte("---\nname: t\ntitle: T\nsummary: s\nlevel: beginner\nkeep-lab: it continues the lab you built\n---\n```rdmalab\na\n```\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tu, err := NewTutor(l, m)
	if err != nil || m.resets != 0 {
		t.Fatalf("resets %d, err %v", m.resets, err)
	}
	tu.Run()
	if err := tu.Back(); err == nil || !strings.Contains(err.Error(), "cannot go back") {
		t.Errorf("back: %v", err)
	}
}

func TestShippedLessonsParse(t *testing.T) {
	c, err := Load(nil, Dir{FS: Shipped(), Name: "shipped"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, e := range c.Entries() {
		if e.Err != nil {
			fmt.Fprintln(&buf, e.Err)
		}
	}
	if buf.Len() > 0 {
		t.Error(buf.String())
	}
	if len(c.Entries()) == 0 {
		t.Error("no shipped lessons")
	}
}
