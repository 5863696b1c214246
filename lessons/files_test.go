package lessons

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const front = "---\nname: %s\ntitle: T\nsummary: s\nlevel: beginner\nfiles: %s\n---\nHi.\n\n```rdmalab\nhelp\n```\n"

// hostileDir is a trainer's folder whose files/ holds a link out of it,
// a link to /dev/zero, a FIFO, a sparse file far over the bound and one
// good file, with a lesson for each.
func hostileDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := filepath.Join(dir, "files")
	if err := os.Mkdir(files, 0o755); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("/etc/passwd", filepath.Join(files, "passwd")))
	must(os.Symlink("/dev/zero", filepath.Join(files, "zero")))
	must(syscall.Mkfifo(filepath.Join(files, "fifo"), 0o644))
	must(os.WriteFile(filepath.Join(files, "good.pcap"), []byte("pcap"), 0o644))
	must(os.Symlink("good.pcap", filepath.Join(files, "inside")))
	f, err := os.Create(filepath.Join(files, "sparse"))
	must(err)
	must(f.Truncate(6 << 30))
	f.Close()
	for _, n := range []string{"passwd", "zero", "fifo", "sparse", "good.pcap", "inside"} {
		name := strings.TrimSuffix(n, ".pcap")
		must(os.WriteFile(filepath.Join(dir, name+".md"), fmt.Appendf(nil, front, name, n), 0o644))
	}
	return dir
}

// A `files:` entry is read only when it is a regular file inside the
// lesson's folder and within the bound: a link out, a device, a FIFO and
// a 6 GB sparse file are refused at once with the reason, and nothing
// is read from them.
func TestCopyFileRefusesHostileFiles(t *testing.T) {
	d, err := OpenDir(hostileDir(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(nil, d)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"passwd": "a symbolic link to /etc/passwd, out of the lesson's folder",
		"zero":   "a symbolic link to /dev/zero, out of the lesson's folder",
		"fifo":   "a named pipe (FIFO), not a regular file",
		"sparse": "6442450944 bytes: at most 67108864 (64 MiB)",
		"good":   "",
		"inside": "",
	}
	for name, msg := range want {
		e, err := c.Find(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var buf bytes.Buffer
		done := make(chan error, 1)
		go func() { done <- e.CopyFile(e.Lesson.Files[0], &buf) }()
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: CopyFile hangs", name)
		}
		switch {
		case msg == "" && (err != nil || buf.String() != "pcap"):
			t.Errorf("%s: %v, %q", name, err, buf.String())
		case msg != "" && (err == nil || !strings.Contains(err.Error(), msg) || buf.Len() > 0):
			t.Errorf("%s: %v (%d bytes read); want %q", name, err, buf.Len(), msg)
		}
	}
}

// The lesson files of a trainer's folder are read the same way: a link
// out, a FIFO named x.md and a huge sparse .md are catalog entries with
// their fault, listed at once, and the rest load.
func TestCatalogRefusesHostileLessonFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "evil.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok.md"), fmt.Appendf(nil, front, "ok", "x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "huge.md"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(6 << 30)
	f.Close()
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *Catalog, 1)
	go func() {
		c, _ := Load(nil, d)
		done <- c
	}()
	var c *Catalog
	select {
	case c = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Load hangs")
	}
	want := map[string]string{
		"evil": "a symbolic link to /etc/passwd, out of the lesson's folder",
		"fifo": "a named pipe (FIFO), not a regular file",
		"huge": "6442450944 bytes: at most 1048576 (1 MiB)",
		"ok":   "",
	}
	for _, e := range c.Entries() {
		msg, ok := want[e.Name()]
		if !ok {
			t.Errorf("unexpected entry %s", e.Name())
			continue
		}
		if (msg == "") != (e.Err == nil) || e.Err != nil && !strings.Contains(e.Err.Error(), msg) {
			t.Errorf("%s: %v; want %q", e.Name(), e.Err, msg)
		}
		delete(want, e.Name())
	}
	if len(want) > 0 {
		t.Errorf("missing entries: %v", want)
	}
}
