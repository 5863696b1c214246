//go:build unix

package repl

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// deadPID is the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	c := osexec.Command("true")
	if err := c.Run(); err != nil {
		t.Skip("no true to run:", err)
	}
	return c.Process.Pid
}

// The sweep removes only what a dead rdmalab of this user left: a folder
// named with its pid, whose process is gone and whose lock is free.
func TestSweepLessonDirs(t *testing.T) {
	tmp, elsewhere := t.TempDir(), t.TempDir()
	dead := deadPID(t)
	mk := func(name string) string {
		p := filepath.Join(tmp, name)
		writeFiles(t, p, "notes.json", "x")
		return p
	}
	gone := mk(fmt.Sprintf("rdmalab-lesson-%d-a", dead))
	keep := []string{
		mk(fmt.Sprintf("rdmalab-lesson-%d-b", os.Getpid())), // this process's
		mk("rdmalab-lesson-1-c"),                            // a live process's
		mk("rdmalab-lesson-123456"),                         // no pid in the name
		mk(fmt.Sprintf("rdmalab-lessons-%d-x", dead)),       // not the pattern
	}
	locked := mk(fmt.Sprintf("rdmalab-lesson-%d-d", dead)) // a live process in another pid namespace
	lock, err := lockDir(locked)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	keep = append(keep, locked)
	writeFiles(t, elsewhere, "precious", "x")
	link := filepath.Join(tmp, fmt.Sprintf("rdmalab-lesson-%d-e", dead))
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	keep = append(keep, link, filepath.Join(elsewhere, "precious"))
	file := filepath.Join(tmp, fmt.Sprintf("rdmalab-lesson-%d-f", dead))
	writeFiles(t, tmp, filepath.Base(file), "x")
	keep = append(keep, file)
	if os.Getuid() == 0 {
		other := mk(fmt.Sprintf("rdmalab-lesson-%d-g", dead))
		if err := os.Chown(other, 4321, 4321); err != nil {
			t.Fatal(err)
		}
		keep = append(keep, other)
	}
	removed := sweepLessonDirs(tmp)
	if len(removed) != 1 || removed[0] != gone {
		t.Errorf("removed %q, want only %s", removed, gone)
	}
	if _, err := os.Lstat(gone); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: %v", gone, err)
	}
	for _, p := range keep {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// A lesson's folder is named with the pid and locked while it is used,
// and a lesson begun after a crash sweeps the crashed one's.
func TestLessonFolderIsLockedAndSweeps(t *testing.T) {
	s := newTestSession(t)
	s.tmpRoot = t.TempDir()
	stale := filepath.Join(s.tmpRoot, fmt.Sprintf("rdmalab-lesson-%d-x", deadPID(t)))
	writeFiles(t, stale, "notes.json", "x")
	out := &bytes.Buffer{}
	e, err := s.lessonCatalog().Find("first-write")
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.beginLesson(e, out, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(r.dir), fmt.Sprintf("rdmalab-lesson-%d-", os.Getpid())) {
		t.Errorf("folder %s", r.dir)
	}
	if l, err := lockDir(r.dir); err == nil {
		l.Close()
		t.Error("the lesson's folder is not locked")
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the crashed lesson's folder: %v", err)
	}
	r.end(s)
	if ents, _ := os.ReadDir(s.tmpRoot); len(ents) != 0 {
		t.Errorf("left: %v", ents)
	}
}

// manyLessons is a folder with a lesson of 1000 steps.
func manyLessons(t *testing.T) string {
	dir := t.TempDir()
	writeFiles(t, dir, "many.md", lessonText("many", "", strings.Repeat("help\n", 999)+"help"))
	return dir
}

// signalWriter sends sig to this process at its first write once a
// lesson's folder exists in tmp, and waits for the session to notice.
type signalWriter struct {
	s    *Session
	tmp  string
	sig  syscall.Signal
	sent atomic.Bool
	bytes.Buffer
}

func (w *signalWriter) Write(p []byte) (int, error) {
	if ents, _ := os.ReadDir(w.tmp); len(ents) > 0 && !w.sent.Swap(true) {
		syscall.Kill(os.Getpid(), w.sig)
		for i := 0; i < 200 && !w.s.leaving(); i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}
	return w.Buffer.Write(p)
}

// A terminating signal stops a script in the middle of a lesson: the
// lesson stops at its next step, the script says so, and the session's
// end removes the lesson's folder (they were left behind).
func TestSignalStopsLessonAndRemovesItsFolder(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT} {
		if signal.Ignored(sig) {
			continue // started ignoring it (a background job's SIGINT): it stays ignored
		}
		s, err := NewSession(Options{LessonDirs: []string{manyLessons(t)}})
		if err != nil {
			t.Fatal(err)
		}
		s.tmpRoot = t.TempDir()
		stop := s.HandleSignals(time.Minute)
		w := &signalWriter{s: s, tmp: s.tmpRoot, sig: sig}
		var errs bytes.Buffer
		failed, err := s.RunScript(strings.NewReader("learn many\nhelp\n"), "t.rdl", w, ScriptOptions{Stderr: &errs, KeepGoing: true})
		s.Close()
		got := stop()
		if failed != 1 || err == nil || !strings.Contains(err.Error(), "t.rdl:2: stopped by a signal") || got != sig ||
			!strings.Contains(errs.String(), "t.rdl:1: learn: lesson many: stopped by a signal at step") {
			t.Errorf("%v: %d failed, %v, signal %v\n%s", sig, failed, err, got, errs.String())
		}
		if strings.Count(w.String(), "> help") > 500 {
			t.Errorf("%v: the lesson went on", sig)
		}
		if ents, _ := os.ReadDir(s.tmpRoot); len(ents) != 0 {
			t.Errorf("%v: left %v", sig, ents)
		}
	}
}

// blocked is a writer that never returns: a transcript into a pipe no
// one reads.
type blocked struct{}

func (blocked) Write([]byte) (int, error) { select {} }

// A session stuck in a command when the signal comes gets the grace,
// then its lesson's folder is removed under it and the signal ends the
// process. The process is this test binary, run again.
func TestSignalRemovesFolderOfAStuckSession(t *testing.T) {
	if tmp := os.Getenv("RDMALAB_STUCK_HELPER"); tmp != "" {
		s, err := NewSession(Options{LessonDirs: []string{os.Getenv("RDMALAB_STUCK_LESSONS")}})
		if err != nil {
			os.Exit(3)
		}
		s.tmpRoot = tmp
		grace, _ := time.ParseDuration(os.Getenv("RDMALAB_STUCK_GRACE"))
		s.HandleSignals(grace)
		os.WriteFile(filepath.Join(tmp, "ready"), nil, 0o644)
		s.RunScript(strings.NewReader(os.Getenv("RDMALAB_STUCK_SCRIPT")), "t.rdl", blocked{}, ScriptOptions{})
		os.Exit(4)
	}
	for _, c := range []struct {
		script, grace string
		within        time.Duration
	}{
		{"learn many\n", "300ms", 5 * time.Second}, // a lesson: its folder is removed after the grace
		{"help\n", "1h", 5 * time.Second},          // none: the signal acts at once
		// A recording: its temporary file is removed after the grace.
		{"capture start REC\n" + strings.Repeat("help\n", 200), "300ms", 5 * time.Second},
	} {
		tmp := t.TempDir()
		c.script = strings.ReplaceAll(c.script, "REC", filepath.Join(tmp, "rec.pcap"))
		cmd := osexec.Command(os.Args[0], "-test.run=^TestSignalRemovesFolderOfAStuckSession$")
		cmd.Env = append(os.Environ(), "RDMALAB_STUCK_HELPER="+tmp, "RDMALAB_STUCK_LESSONS="+manyLessons(t),
			"RDMALAB_STUCK_SCRIPT="+c.script, "RDMALAB_STUCK_GRACE="+c.grace)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		want := 1
		if !strings.HasPrefix(c.script, "help") {
			want = 2
		}
		for i := 0; ; i++ {
			if ents, _ := os.ReadDir(tmp); len(ents) >= want {
				break
			}
			if i > 1000 {
				cmd.Process.Kill()
				t.Fatalf("%q: not started", c.script)
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // the script reaches the writer that blocks
		start := time.Now()
		cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		var ee *osexec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM || time.Since(start) > c.within {
			t.Errorf("%q: the helper ended with %v after %v, not by SIGTERM", c.script, err, time.Since(start))
		}
		os.Remove(filepath.Join(tmp, "ready"))
		if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
			t.Errorf("%q: left: %v", c.script, ents)
		}
	}
}

// A signal while a script records stops the script, and the recording
// is kept as capture stop keeps it: no temporary file is left.
func TestSignalKeepsARecording(t *testing.T) {
	s := newTestSession(t)
	dir := t.TempDir()
	stop := s.HandleSignals(time.Minute)
	w := &signalWriter{s: s, tmp: dir, sig: syscall.SIGTERM}
	script := "capture start " + filepath.Join(dir, "rec.pcap") + "\nwrite 100\nhelp\n" + strings.Repeat("help\n", 100)
	_, err := s.RunScript(strings.NewReader(script), "t.rdl", w, ScriptOptions{})
	if got := stop(); got != syscall.SIGTERM || err == nil || !strings.Contains(err.Error(), "stopped by a signal") {
		t.Errorf("%v, %v", got, err)
	}
	if !strings.Contains(w.String(), "the recording still running at the end was stopped") {
		t.Errorf("transcript:\n%s", w.String())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "rec.pcap" {
		t.Errorf("left: %v", ents)
	}
}
