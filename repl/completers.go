package repl

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rdmalab/rdmalab/engine"
)

// The completers of arguments and option values. Each reads the session's
// snapshot (s.snap, s.segs) or static tables, never the engine (the
// engine command's asks libibverbs which devices are present).

func completeValues(vals ...string) Completer {
	return func(*Session, []string) []Suggestion {
		out := make([]Suggestion, len(vals))
		for i, v := range vals {
			out[i] = Suggestion{v, ""}
		}
		return out
	}
}

func completeCounts(extra ...string) Completer {
	return func(*Session, []string) []Suggestion {
		out := []Suggestion{{"1", "one"}, {"2", ""}, {"5", ""}}
		for _, e := range extra {
			desc := ""
			switch e {
			case "all":
				desc = "everything pending"
			case "0":
				desc = "disarm"
			}
			out = append(out, Suggestion{e, desc})
		}
		return out
	}
}

func completeSizes(*Session, []string) []Suggestion {
	return []Suggestion{
		{"4096", "one page"},
		{"10000", "two pages and a bit"},
		{"64k", "16 pages"},
		{"128k", "32 pages"},
		{"1M", "sv_max_payload: the largest NFS I/O"},
	}
}

func completeOnOff(*Session, []string) []Suggestion {
	return []Suggestion{{"on", "switch on"}, {"off", "switch off"}}
}

func completeThreads(s *Session, _ []string) []Suggestion {
	var out []Suggestion
	for _, t := range s.snap.Threads {
		desc := t.State
		if t.WaitingFor != "" {
			desc += " in " + t.WaitingFor
		}
		if len(t.Frames) > 0 {
			desc += ", in " + t.Frames[len(t.Frames)-1]
		}
		out = append(out, Suggestion{t.Name, "nfsd thread: " + desc})
	}
	return out
}

func completeThreadsOrNone(s *Session, prev []string) []Suggestion {
	return append(completeThreads(s, prev), Suggestion{"none", "no focus: the scheduler picks"})
}

func completeStatuses(*Session, []string) []Suggestion {
	var out []Suggestion
	for _, st := range engine.Statuses() {
		out = append(out, Suggestion{st.String(), st.Meaning()})
	}
	return out
}

func completeEngines(s *Session, prev []string) []Suggestion {
	if len(prev) == 0 {
		inUse := map[bool]string{true: " (in use)"}
		ibvNote := "a real device (rxe or an HCA) through libibverbs"
		if !engine.DeviceBuilt() {
			ibvNote += ": not in this binary (go build -tags ibv)"
		}
		return []Suggestion{{"sim", "the embedded Soft-RoCE model" + inUse[s.engine == ""]},
			{"ibv", ibvNote + inUse[s.engine != ""]}}
	}
	if len(prev) > 2 || !strings.EqualFold(prev[0], "ibv") {
		return nil
	}
	devs, _ := engine.Devices()
	var out []Suggestion
	for _, d := range devs {
		note := "the server's and the client's QP"
		if len(prev) == 2 {
			note = "the client's QP"
		}
		out = append(out, Suggestion{d, note})
	}
	return out
}

func completeTargets(*Session, []string) []Suggestion {
	var out []Suggestion
	for _, t := range showTargets() {
		out = append(out, Suggestion{t.Name, t.Short})
	}
	return out
}

func completeTargetArg(s *Session, prev []string) []Suggestion {
	if len(prev) == 0 {
		return nil
	}
	t, ok := findTarget(prev[0])
	if !ok || t.Complete == nil {
		return nil
	}
	return t.Complete(s, prev[1:])
}

func completeXIDs(s *Session, _ []string) []Suggestion {
	var out []Suggestion
	for _, k := range s.snap.Calls {
		out = append(out, Suggestion{k.XID, k.Label + ", " + k.State})
	}
	return out
}

func completeSegments(s *Session, _ []string) []Suggestion { return s.segs }

func completeRWIDs(s *Session, _ []string) []Suggestion {
	var out []Suggestion
	for _, r := range s.snap.RWCtxts.InUse {
		out = append(out, Suggestion{fmt.Sprintf("rw#%d", r.ID), fmt.Sprintf("%s, %d entries, %s", r.Type, r.NEnts, r.Where)})
	}
	return out
}

func completeFuncs(s *Session, _ []string) []Suggestion {
	out := kernelFuncs()
	known := map[string]bool{}
	for _, f := range out {
		known[f.Text] = true
	}
	for _, f := range s.funcList {
		if !known[f] {
			out = append(out, Suggestion{f, "seen in this session's events"})
		}
	}
	return out
}

func completeSettingNames(s *Session, prev []string) []Suggestion {
	if len(prev) > 0 {
		return nil
	}
	var out []Suggestion
	for _, st := range engine.SettingsTable() {
		out = append(out, Suggestion{st.Name, st.Short})
	}
	return out
}

func completeSettingValue(s *Session, prev []string) []Suggestion {
	if len(prev) == 0 {
		return nil
	}
	st, ok := engine.FindSetting(prev[0])
	if !ok {
		return nil
	}
	cur := st.Get(s.set)
	out := []Suggestion{}
	seen := false
	for _, c := range st.Values {
		v := Suggestion(c)
		if strings.HasPrefix(cur, v.Text) && (len(cur) == len(v.Text) || cur[len(v.Text)] == ' ') {
			v.Desc = strings.TrimSpace("current " + v.Desc)
			seen = true
		}
		out = append(out, v)
	}
	if !seen && !strings.Contains(cur, " ") {
		out = append([]Suggestion{{cur, "current"}}, out...)
	}
	return out
}

func completeInjectPoints(_ *Session, prev []string) []Suggestion {
	var out []Suggestion
	for _, p := range engine.InjectPoints() {
		out = append(out, Suggestion{p.Name, p.Func + ": " + p.Desc})
	}
	return out
}

func completeHelpTopics(s *Session, prev []string) []Suggestion {
	out := []Suggestion{{"tour", "a first session, step by step"}}
	return append(out, s.commandSuggestions()...)
}

func completeLessons(s *Session, _ []string) []Suggestion {
	var out []Suggestion
	for _, e := range s.lessonCatalog().Entries() {
		if e.Lesson != nil {
			out = append(out, Suggestion{e.Lesson.Name, e.Lesson.Title})
		}
	}
	return out
}

// pathsFor lists the entries of the directory a partial path names, for
// FILE arguments. Reading one directory is cheap enough for a keystroke.
func pathsFor(root, partial string) []Suggestion {
	dir, base := filepath.Split(partial)
	look := dir
	if look == "" {
		look = "."
	}
	if !filepath.IsAbs(look) && root != "" {
		look = filepath.Join(root, look)
	}
	ents, err := os.ReadDir(look)
	if err != nil {
		return nil
	}
	var out []Suggestion
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if e.IsDir() {
			out = append(out, Suggestion{dir + name + "/", "directory"})
			continue
		}
		desc := "file"
		if info, err := e.Info(); err == nil {
			desc = fmt.Sprintf("file, %d bytes", info.Size())
		}
		out = append(out, Suggestion{dir + name, desc})
		if len(out) >= 200 {
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Text < out[j].Text })
	return out
}
