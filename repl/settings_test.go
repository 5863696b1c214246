package repl

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
)

// Every setting reads back what it was set to, and its name is an
// engine.Settings JSON name or a bug.
func TestSettingsRoundTrip(t *testing.T) {
	for _, st := range settingsTable() {
		s := defaultSettings()
		if len(st.Values) == 0 {
			t.Errorf("%s: nothing for Tab to offer", st.Name)
			continue
		}
		v := st.Values[len(st.Values)-1].Text
		if err := st.set(&s, v); err != nil {
			t.Errorf("%s %s: %v", st.Name, v, err)
			continue
		}
		if got := strings.TrimSuffix(st.get(s), " (profile)"); got != v && !(v == "default") {
			t.Errorf("%s: set %q, reads %q", st.Name, v, got)
		}
	}
}

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
	if s.lab.Server.Beh.Has(svcrdma.B1) || s.lab.Set.Bugs[svcrdma.B1] {
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
		st, _ := findSetting(r.name)
		for _, v := range st.Values {
			s := newTestSession(t)
			next := cloneSettings(s.set)
			if st.set(&next, v.Text) != nil || st.get(next) == st.get(s.set) || next.Validate() != nil {
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
			case r.sometimes && rebuilt != (behaviourOf(next).Has(svcrdma.B9) != behaviourOf(defaultSettings()).Has(svcrdma.B9)):
				t.Errorf("%s %s: rebuilt %v: %q", st.Name, v.Text, rebuilt, out.String())
			}
		}
	}
	for _, c := range []struct {
		name string
		mark bool
	}{{"profile", true}, {"auto_complete", true}, {"page_size", false}} {
		st, _ := findSetting(c.name)
		if (st.unlessLive != "") != (c.name == "profile") || (st.live != nil) != c.mark {
			t.Errorf("%s: live %v unlessLive %q", c.name, st.live != nil, st.unlessLive)
		}
	}
	if st, _ := findSetting("B9"); st.live != nil {
		t.Errorf("B9 claims to change the running lab; it sizes the Send Queue at accept")
	}
}

func TestSettingErrors(t *testing.T) {
	s := newTestSession(t)
	err := s.Exec("set threads 99", Pos{}, io.Discard)
	var re *rangeError
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

// Every field of engine.Settings is a row of the settings table: some
// row's set changes it, and that row is named by the field's JSON name
// (the bugs map: the B rows). A field added without a row fails here.
// engine is the provider, chosen by the engine command, not by set.
func TestSettingsTableCoversEveryField(t *testing.T) {
	typ := reflect.TypeFor[engine.Settings]()
	changedBy := map[string][]string{} // field → rows that change it
	for _, st := range settingsTable() {
		for _, v := range st.Values {
			before := defaultSettings()
			after := cloneSettings(before)
			if err := st.set(&after, v.Text); err != nil {
				continue
			}
			bv, av := reflect.ValueOf(before), reflect.ValueOf(after)
			for i := range typ.NumField() {
				if !reflect.DeepEqual(bv.Field(i).Interface(), av.Field(i).Interface()) {
					f := typ.Field(i).Name
					changedBy[f] = append(changedBy[f], st.Name)
				}
			}
		}
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "engine" {
			continue
		}
		rows := changedBy[f.Name]
		if len(rows) == 0 {
			t.Errorf("engine.Settings.%s (%q): no row of the settings table sets it", f.Name, name)
			continue
		}
		if f.Name == "Bugs" {
			continue // B1..B13, and profile resets them
		}
		if !slices.Contains(rows, name) {
			t.Errorf("engine.Settings.%s is set by %v, not by a row named %q", f.Name, rows, name)
		}
	}
}
