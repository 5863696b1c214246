package repl

// A lesson's working folder: made with the process's id in its name and
// locked while the process lives, removed when the lesson ends, when a
// signal ends the process, and, when a process died without removing
// it, by the next lesson of the same user. What a signal must not leave
// behind, and the handler that sees to it.

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// lessonDirPrefix starts every lesson folder's name; the owner's pid
// follows it.
const lessonDirPrefix = "rdmalab-lesson-"

// newLessonDir makes a lesson's folder in tmp ("" for os.TempDir) and
// locks it; closing the lock hands it to a sweeper. Folders of dead
// processes are swept first.
func newLessonDir(tmp string) (dir string, lock io.Closer, err error) {
	if tmp == "" {
		tmp = os.TempDir()
	}
	sweepLessonDirs(tmp)
	dir, err = os.MkdirTemp(tmp, fmt.Sprintf("%s%d-*", lessonDirPrefix, os.Getpid()))
	if err != nil {
		return "", nil, fmt.Errorf("a folder for the lesson: %w", err)
	}
	lock, err = lockDir(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("a folder for the lesson: lock %s: %w", dir, err)
	}
	return dir, lock, nil
}

// sweepLessonDirs removes the lesson folders in tmp a crashed or killed
// rdmalab left: only folders (not links) named as newLessonDir names
// them, owned by this user, whose process is gone and whose lock is
// free (a process of another pid namespace sharing tmp holds it).
func sweepLessonDirs(tmp string) (removed []string) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		pid, ok := lessonDirPID(e.Name())
		if !ok || pid == os.Getpid() || e.Type() != fs.ModeDir {
			continue
		}
		path := filepath.Join(tmp, e.Name())
		if !ownDir(path) || processAlive(pid) {
			continue
		}
		lock, err := lockDir(path)
		if err != nil {
			continue
		}
		if os.RemoveAll(path) == nil {
			removed = append(removed, path)
		}
		lock.Close()
	}
	return removed
}

// lessonDirPID is the owner's pid in a lesson folder's name.
func lessonDirPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, lessonDirPrefix)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(digits)
	return pid, ok && err == nil && pid > 0
}

// leftovers are what the session would leave behind if a signal ended
// the process now: a lesson's folder, a recording's temporary file. A
// signal handler on another goroutine reads and removes them.
type leftovers struct {
	mu    sync.Mutex
	paths map[string]bool
}

func (l *leftovers) add(path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.paths == nil {
		l.paths = map[string]bool{}
	}
	l.paths[path] = true
}

func (l *leftovers) drop(path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.paths, path)
}

// any reports whether there is something to remove.
func (l *leftovers) any() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.paths) > 0
}

// removeAll removes them now, once.
func (l *leftovers) removeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for p := range l.paths {
		os.RemoveAll(p)
	}
	l.paths = nil
}

// Terminating is the signals that end a session, a script or a view
// once it has given back what it took (the terminal, its files).
func Terminating() []os.Signal {
	return []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}
}

// HandleSignals is for a session that runs a script (rdmalab run, learn
// without a terminal). A terminating signal that comes while the session
// has something to leave behind (leftovers: a lesson's folder, a
// recording's temporary file) stops it before its next command or step,
// and the session's end removes the folder and keeps the recording, as
// capture stop would; a session still busy after grace, or a second
// signal, has them removed at once and the signal delivered as if it
// were not handled. With nothing to leave the signal acts at once, as
// unhandled. stop ends the handling and returns
// the signal that stopped the session, or nil.
func (s *Session) HandleSignals(grace time.Duration) (stop func() os.Signal) {
	sigs := make(chan os.Signal, 2)
	for _, sig := range Terminating() {
		// One the process was started to ignore (nohup) stays ignored.
		if !signal.Ignored(sig) {
			signal.Notify(sigs, sig)
		}
	}
	done := make(chan struct{})
	var got atomic.Value
	go func() {
		var sig os.Signal
		select {
		case <-done:
			return
		case sig = <-sigs:
		}
		if !s.tmp.any() {
			reraise(sig) // nothing to clean: the signal acts as it did unhandled
			return
		}
		got.Store(sig)
		s.Leave()
		s.Interrupt()
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-done:
			return
		case <-sigs:
		case <-t.C:
		}
		s.tmp.removeAll()
		reraise(sig)
	}()
	return func() os.Signal {
		signal.Stop(sigs)
		close(done)
		sig, _ := got.Load().(os.Signal)
		return sig
	}
}
