package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// entries lists dir, so a test sees any temporary file left behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range des {
		out = append(out, d.Name())
	}
	return out
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func TestWriteNewFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	a, err := Write(path, writeString("new\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("file holds %q", b)
	}
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644&^fs.FileMode(umask) {
		t.Errorf("mode %v with umask %03o", fi.Mode().Perm(), umask)
	}
	if a.ReplacedLink() != "" {
		t.Errorf("no link was replaced, got %q", a.ReplacedLink())
	}
	if got := entries(t, dir); !slices.Equal(got, []string{"state.json"}) {
		t.Errorf("directory holds %q", got)
	}
}

func TestReplaceKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(path, writeString("new")); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if b, _ := os.ReadFile(path); string(b) != "new" || fi.Mode().Perm() != 0o640 {
		t.Errorf("file holds %q, mode %v", b, fi.Mode().Perm())
	}
}

// A disk that fills halfway through: the old file is whole afterwards and
// no temporary file remains.
func TestFailedWriteKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lab.pcap")
	os.WriteFile(path, []byte("the old good file"), 0o644)
	_, err := Write(path, func(w io.Writer) error {
		if _, err := w.Write(bytes.Repeat([]byte("x"), 4096)); err != nil {
			return err
		}
		return &fs.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
	})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("got %v, want ENOSPC", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "the old good file" {
		t.Errorf("old file now holds %q", b)
	}
	if got := entries(t, dir); !slices.Equal(got, []string{"lab.pcap"}) {
		t.Errorf("directory holds %q", got)
	}
}

// RLIMIT_FSIZE makes write(2) fail for real (EFBIG; Go ignores SIGXFSZ),
// as a full disk would: the child writes past the limit.
func TestFileSizeLimit(t *testing.T) {
	if os.Getenv("ATOMICFILE_CHILD") == "1" {
		path := os.Getenv("ATOMICFILE_PATH")
		lim := syscall.Rlimit{Cur: 1 << 16, Max: 1 << 16}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			t.Fatal(err)
		}
		_, err := Write(path, writeString(strings.Repeat("y", 1<<17)))
		if !errors.Is(err, syscall.EFBIG) {
			t.Fatalf("got %v, want EFBIG", err)
		}
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "big")
	os.WriteFile(path, []byte("old"), 0o644)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFileSizeLimit$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_CHILD=1", "ATOMICFILE_PATH="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("old file now holds %d bytes", len(b))
	}
	if got := entries(t, dir); !slices.Equal(got, []string{"big"}) {
		t.Errorf("directory holds %q", got)
	}
}

// A symbolic link at the name is replaced; what it pointed to is not
// written, even when it is writable.
func TestSymlinkIsReplacedNotFollowed(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("precious"), 0o644)
	path := filepath.Join(dir, "state.json")
	if err := os.Symlink("victim", path); err != nil {
		t.Fatal(err)
	}
	a, err := Write(path, writeString("state"))
	if err != nil {
		t.Fatal(err)
	}
	if a.ReplacedLink() != "victim" {
		t.Errorf("ReplacedLink = %q", a.ReplacedLink())
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the link's target now holds %q", b)
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("%s is %v (%v), want a regular file", path, fi.Mode(), err)
	}
	if b, _ := os.ReadFile(path); string(b) != "state" {
		t.Errorf("file holds %q", b)
	}
	// A dangling link is replaced the same way.
	dangling := filepath.Join(dir, "d")
	os.Symlink("/nonexistent/x", dangling)
	if _, err := Write(dangling, writeString("ok")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dangling); string(b) != "ok" {
		t.Errorf("file holds %q", b)
	}
}

func TestNotRegular(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{sub: "is a directory, not a regular file", fifo: "is a named pipe (FIFO), not a regular file"} {
		_, err := Write(path, writeString("x"))
		var nr *NotRegularError
		if !errors.As(err, &nr) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", path, err, want)
		}
	}
	if got := entries(t, dir); !slices.Equal(got, []string{"fifo", "sub"}) {
		t.Errorf("directory holds %q", got)
	}
	if got := entries(t, sub); len(got) != 0 {
		t.Errorf("the directory now holds %q", got)
	}
	_, err := Write("/dev/null", writeString("x"))
	if err == nil || !strings.Contains(err.Error(), "/dev/null is a character device") {
		t.Errorf("/dev/null: %v", err)
	}
}

func TestMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "f")
	_, err := Write(path, writeString("x"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Errorf("got %v", err)
	}
}

func TestAbortAndLongName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, strings.Repeat("é", 120)) // 240 bytes
	a, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(filepath.Base(a.TempName())) > 255 {
		t.Errorf("temporary name of %d bytes", len(filepath.Base(a.TempName())))
	}
	io.WriteString(a, "partial")
	if err := a.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("directory holds %q after Abort", got)
	}
	if a.Abort() != nil || a.Commit() == nil {
		t.Error("Abort twice must be quiet, Commit after it an error")
	}
}
