package repl

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/snap"
)

type settingRow struct {
	name, value, rng, short string
	live, sometimes         bool // sometimes: live unless the change is of one kind
}

// settingsReport is every setting; the JSON is engine.Settings as the lab
// runs it, with the behaviour string and the engine name.
type settingsReport struct {
	Engine    string          `json:"engine"`
	Settings  engine.Settings `json:"settings"`
	Behaviour string          `json:"behaviour"`
	rows      []settingRow
}

func settingsReportOf(s *Session, snap snap.Snapshot, _ string) (report, error) {
	v := settingsReport{Engine: "sim", Settings: s.set, Behaviour: snap.Behaviour}
	if s.lab.Set.Engine != "" {
		v.Engine = s.lab.Set.Engine
	}
	for _, st := range engine.SettingsTable() {
		if st.Name[0] == 'B' {
			continue // show bugs lists them
		}
		v.rows = append(v.rows, settingRow{st.Name, st.InUse(s.set, s.lab), st.Accepts(s.set), st.Short, st.Live() && st.UnlessLive() == "", st.UnlessLive() != ""})
	}
	return v, nil
}

func (v settingsReport) writeText(out io.Writer) {
	var w strings.Builder
	defer func() { fmt.Fprint(out, fitText(w.String(), textWidth)) }()
	fmt.Fprintf(&w, "engine %s, behaviour %s (show bugs lists B1..B13)\n", v.Engine, v.Behaviour)
	fmt.Fprintln(&w, "* changes the running lab, the others rebuild it; (N): the value in use")
	fmt.Fprintln(&w, "~ changes it too, unless it switches B9 (new2026 against the others): rebuilds")
	for _, r := range v.rows {
		mark := " "
		switch {
		case r.live:
			mark = "*"
		case r.sometimes:
			mark = "~"
		}
		fmt.Fprintf(&w, "%s%-16s %-11s %s\n", mark, r.name, r.value, r.short)
	}
}

type bugRow struct {
	Bug      string `json:"bug"`
	On       bool   `json:"on"`
	Override bool   `json:"override"` // set one at a time, not by the profile
	Describe string `json:"describe"`
}

// bugsReport is the behaviour: a profile and its bugs.
type bugsReport struct {
	Behaviour string   `json:"behaviour"`
	Bugs      []bugRow `json:"bugs"`
}

func bugsReportOf(s *Session, _ snap.Snapshot, _ string) (report, error) {
	beh, bugs := s.set.BugStates()
	v := bugsReport{Behaviour: beh}
	for _, b := range bugs {
		v.Bugs = append(v.Bugs, bugRow(b))
	}
	return v, nil
}

func (v bugsReport) writeText(out io.Writer) {
	var w strings.Builder
	defer func() { fmt.Fprint(out, fitText(w.String(), textWidth)) }()
	fmt.Fprintf(&w, "behaviour %s (set profile seed|fix2025|new2026; set B4 on|off|default)\n", v.Behaviour)
	for _, b := range v.Bugs {
		state := engine.OnOff(b.On)
		if b.Override {
			state += " (set)"
		}
		fmt.Fprintf(&w, "%-3s  %-9s  %s\n", b.Bug, state, b.Describe)
	}
}
