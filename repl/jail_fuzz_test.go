package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLessonFiles: for any command line a lesson may hold, what the
// vetting lets through names plain files only, and every FILE argument,
// vetted or not, resolves inside the lesson's folder or is refused —
// with links planted in the folder that lead out of it and that stay.
func FuzzLessonFiles(f *testing.F) {
	for _, seed := range []string{
		"save -- --x/../../../../tmp/f",
		"capture save -- --x/../../f.pcap",
		"capture start -- --x/../f.pcap",
		"capture open -- --x/../../../etc/passwd",
		"replay --json -- --x/../f.pcap",
		"replay --qp 1 -- out/f",
		"save outf",
		"save in/../../x",
		"capture open loop/x",
		"save ./././../x",
		"save ．．／x",
		"save a\\..\\..\\x",
		`save "--x/../../y"`,
		"save /etc/passwd",
		"capture open in/f.pcap --max-expand 1M",
	} {
		f.Add(seed)
	}
	s := newTestSession(f)
	dir := f.TempDir()
	outside := f.TempDir()
	for name, to := range map[string]string{"out": outside, "outf": filepath.Join(outside, "f"), "in": "sub", "loop": "loop"} {
		if err := os.Symlink(to, filepath.Join(dir, name)); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		f.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		f.Fatal(err)
	}
	j := &lessonJail{dir: dir, at: "fuzz.md:1"}
	f.Fuzz(func(t *testing.T, line string) {
		toks, err := Tokenize(line)
		if err != nil || len(toks) == 0 {
			return
		}
		cmd := s.lookup(toks[0].Text)
		if cmd == nil {
			return
		}
		a, err := cmd.parse(cmd.lineWords(line, toks)[1:])
		if err != nil {
			return
		}
		_, verr := s.validateLessonLine(line)
		for i, v := range a.Pos {
			if arg, ok := argAt(cmd, i); !ok || !arg.Paths {
				continue
			}
			if verr == nil && (strings.ContainsAny(v, `/\`) || v == "." || v == ".." || v == "") {
				t.Fatalf("%q: the vetting let %q through", line, v)
			}
			p, err := j.resolve(v)
			if err != nil {
				continue
			}
			if why := outsideOf(root, p); why != "" {
				t.Fatalf("%q: %q resolves to %s: %s", line, v, p, why)
			}
		}
	})
}

// outsideOf says how path leaves root, or "": by its name, by a link
// among its folders (resolve returns them resolved), or by a link at its
// end that a read would follow.
func outsideOf(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return "not below the folder"
	}
	cur := root
	parts := strings.Split(rel, string(filepath.Separator))
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			return "" // the rest does not exist yet
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		if i < len(parts)-1 {
			return "a link among its folders: " + cur
		}
		t, err := filepath.EvalSymlinks(cur)
		if err == nil {
			if r, err := filepath.Rel(root, t); err != nil || !filepath.IsLocal(r) {
				return "a link at its end leads to " + t
			}
		}
	}
	return ""
}
