package engine

import (
	"slices"
	"strconv"
	"testing"
)

// RunState says what a front end words as "why nothing can run": an idle
// lab's thread waits in svc_recv; a posted call leaves its Send on the
// wire and one call outstanding; delivered, the thread can run.
func TestRunState(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.Threads = 2 })
	r := l.RunState()
	if len(r.Runnable) != 0 || !slices.Equal(r.Waiting, []string{"nfsd0 in svc_recv", "nfsd1 in svc_recv"}) || len(r.Pending) != 0 || r.Outstanding != 0 {
		t.Fatalf("idle lab: %+v", r)
	}
	if _, err := l.Preset(PresetWrite, 4096, ChunkOpts{}); err != nil {
		t.Fatal(err)
	}
	if r = l.RunState(); len(r.Pending) != 1 || r.Outstanding != 1 || len(r.Runnable) != 0 {
		t.Fatalf("a call posted: %+v", r)
	}
	if _, err := l.Complete(1, nil); err != nil {
		t.Fatal(err)
	}
	if r = l.RunState(); len(r.Runnable) != 1 || len(r.Pending) != 0 {
		t.Fatalf("its Send delivered: %+v", r)
	}
}

// Focus puts the scheduler's focus back as it was, on any thread or none.
func TestFocusRestores(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.Threads = 2 })
	if got := l.Threads(); !slices.Equal(got, []string{"nfsd0", "nfsd1"}) {
		t.Fatalf("threads %v", got)
	}
	if err := l.Thread("nfsd1"); err != nil {
		t.Fatal(err)
	}
	restore, err := l.Focus("nfsd0")
	if err != nil || l.Sched.Focused().Name != "nfsd0" {
		t.Fatalf("focus nfsd0: %v", err)
	}
	restore()
	if f := l.Sched.Focused(); f == nil || f.Name != "nfsd1" {
		t.Errorf("focus after restore: %v, want nfsd1", f)
	}
	if _, err := l.Focus("nfsd9"); err == nil {
		t.Error("no error focusing a thread that does not exist")
	}
}

// A live setting changes the running lab and its settings; one that
// shapes the transport is left to a rebuild; InUse says the value the
// lab uses where the setting means "auto".
func TestApplySetting(t *testing.T) {
	l := newLab(t, nil)
	st, _ := FindSetting("auto_complete")
	next, same, err := st.Change(l.Set, "on")
	if err != nil || same {
		t.Fatalf("auto_complete on: same %v, %v", same, err)
	}
	if ok, err := l.ApplySetting(st, next); !ok || err != nil || !l.Set.AutoComplete {
		t.Errorf("auto_complete: live %v, %v, set %v", ok, err, l.Set.AutoComplete)
	}
	st, _ = FindSetting("page_size")
	next, _, _ = st.Change(l.Set, "8192")
	if ok, err := l.ApplySetting(st, next); ok || err != nil || l.Set.PageSize != 4096 {
		t.Errorf("page_size: live %v, %v, page size %d", ok, err, l.Set.PageSize)
	}
	if _, _, err := st.Change(l.Set, "5000"); err == nil {
		t.Error("page_size 5000 accepted")
	}
	st, _ = FindSetting("sq_depth")
	if got, want := st.InUse(l.Set, l), "0 ("+strconv.Itoa(l.Server.SQDepth)+")"; got != want || l.Server.SQDepth == 0 {
		t.Errorf("sq_depth in use: %q, want %q", got, want)
	}
	if !l.Can(DeclaredStatus) || !l.Can(VirtualLink) {
		t.Error("the sim says it cannot declare a status or change its link")
	}
}

// A preset's call reads as the client made it, and the client keeps it.
func TestPresetCalls(t *testing.T) {
	l := newLab(t, nil)
	k, err := l.Preset(PresetRead, 8192, ChunkOpts{Segments: 2})
	if err != nil {
		t.Fatal(err)
	}
	if k.State != "sent" || len(k.Segs) != 2 || k.Segs[0].Kind != "write chunk 0" || k.Segs[0].Length+k.Segs[1].Length != 8192 {
		t.Errorf("READ 8192 in 2 segments: %+v", k)
	}
	got, ok := l.CallByXID(k.XID)
	if calls := l.Calls(-1); !ok || got.Label != k.Label || len(calls) != 1 || calls[0].XID != k.XID {
		t.Errorf("the client's calls: %v %+v, %+v", ok, got, calls)
	}
	if _, ok := l.CallByXID(k.XID + 1); ok {
		t.Error("a call found by an XID no call has")
	}
}
