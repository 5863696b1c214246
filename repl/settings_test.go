package repl

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
)

func TestSettingLiveOrRebuild(t *testing.T) {
	s := newTestSession(t)
	lab := s.lab
	var out bytes.Buffer
	run := func(line string) {
		t.Helper()
		out.Reset()
		if err := s.Exec(line, Pos{}, &out); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	run("set auto_complete on")
	if s.lab != lab || !s.lab.Set.AutoComplete {
		t.Error("auto_complete did not change the running lab")
	}
	run("set profile seed")
	if s.lab != lab || !s.lab.Server.Beh.Has(svcrdma.B1) {
		t.Error("profile seed did not change the running lab's behaviour")
	}
	run("set B1 off")
	if s.lab.Server.Beh.Has(svcrdma.B1) || s.lab.Set.Bugs[string(svcrdma.B1)] {
		t.Error("B1 still on")
	}
	run("set B9 off") // B9 sizes the SQ: a new transport
	if s.lab == lab || !strings.Contains(out.String(), "rebuilt") {
		t.Errorf("B9 did not rebuild: %q", out.String())
	}
	lab = s.lab
	run("write 4096")
	run("set page_size 8192")
	if s.lab == lab || s.lab.Server.PageSize != 8192 || !strings.Contains(out.String(), "1 call(s) in flight were dropped") {
		t.Errorf("page_size: %q", out.String())
	}
	run("set page_size 8192")
	if !strings.Contains(out.String(), "already") {
		t.Errorf("same value: %q", out.String())
	}
}

// The listing's marks tell the truth: a `*` setting changes the running
// lab, an unmarked one rebuilds it, and `~` (profile) rebuilds only when
// the change switches B9.
func TestSettingsListMarksTellTheTruth(t *testing.T) {
	rows, _ := settingsReportOf(newTestSession(t), snap.Snapshot{}, "")
	for _, r := range rows.(settingsReport).rows {
		st, _ := engine.FindSetting(r.name)
		for _, v := range st.Values {
			s := newTestSession(t)
			next := s.set.Clone()
			if st.Set(&next, v.Text) != nil || st.Get(next) == st.Get(s.set) || next.Validate() != nil {
				continue
			}
			lab := s.lab
			var out bytes.Buffer
			if err := s.Exec("set "+st.Name+" "+v.Text, Pos{}, &out); err != nil {
				t.Fatalf("set %s %s: %v", st.Name, v.Text, err)
			}
			rebuilt := s.lab != lab
			switch {
			case r.live && rebuilt, !r.live && !r.sometimes && !rebuilt:
				t.Errorf("%s marked live=%v but set %s: %q", st.Name, r.live, v.Text, out.String())
			case r.sometimes && rebuilt != (next.Behaviour().Has(svcrdma.B9) != defaultSettings().Behaviour().Has(svcrdma.B9)):
				t.Errorf("%s %s: rebuilt %v: %q", st.Name, v.Text, rebuilt, out.String())
			}
		}
	}
	for _, c := range []struct {
		name string
		mark bool
	}{{"profile", true}, {"auto_complete", true}, {"page_size", false}} {
		st, _ := engine.FindSetting(c.name)
		if (st.UnlessLive() != "") != (c.name == "profile") || st.Live() != c.mark {
			t.Errorf("%s: live %v unlessLive %q", c.name, st.Live(), st.UnlessLive())
		}
	}
	if st, _ := engine.FindSetting("B9"); st.Live() {
		t.Errorf("B9 claims to change the running lab; it sizes the Send Queue at accept")
	}
}

func TestSettingErrors(t *testing.T) {
	s := newTestSession(t)
	err := s.Exec("set threads 99", Pos{}, io.Discard)
	var re *engine.RangeError
	if !errors.As(err, &re) || err.Error() != "set: threads must be 1..64, not 99" {
		t.Errorf("threads 99: %v", err)
	}
	if err := s.Exec("set pagesize 4096", Pos{}, io.Discard); err == nil || !strings.Contains(err.Error(), "did you mean `set page_size`") {
		t.Errorf("pagesize: %v", err)
	}
}

// post_lock cannot change while a thread holds the lock or is posting.
func TestPostLockNotWhilePosting(t *testing.T) {
	s := newTestSession(t)
	for _, l := range []string{"write 4096", "complete", "continue", "complete", "until sc_post_seq"} {
		if err := s.Exec(l, Pos{}, io.Discard); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
	err := s.Exec("set post_lock off", Pos{}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "inside svc_rdma_post_send") {
		t.Fatalf("post_lock while posting: %v", err)
	}
	if err := s.Exec("continue", Pos{}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := s.Exec("set post_lock off", Pos{}, io.Discard); err != nil || !s.lab.Server.Cfg.NoPostLock {
		t.Fatalf("post_lock when idle: %v", err)
	}
}
