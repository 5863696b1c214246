package follow

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A file written in pieces is read whole, each piece as it comes: at the
// end a read waits for the next piece rather than returning io.EOF, and
// io.EOF comes when the context ends.
func TestReadsAsTheFileGrows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grows")
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.poll = 5 * time.Millisecond

	pieces := []string{"first ", "second, a longer piece ", "", "third"}
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		got <- b
	}()
	for _, p := range pieces {
		time.Sleep(30 * time.Millisecond) // the reader is at the end, waiting
		if _, err := w.WriteString(p); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case b := <-got:
		t.Fatalf("the reader ended with %q while the context was alive", b)
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	select {
	case b := <-got:
		if want := strings.Join(pieces, ""); string(b) != want {
			t.Errorf("read %q, want %q", b, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the reader did not end when the context did")
	}
	if !r.Stopped() || r.Offset() != int64(len(strings.Join(pieces, ""))) {
		t.Errorf("Stopped %v, Offset %d", r.Stopped(), r.Offset())
	}
}

// A file that shrinks under the reader is an error naming it.
func TestShrunkFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shrinks")
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.poll = time.Millisecond
	if _, err := io.ReadFull(r, make([]byte, 100)); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 10); err != nil {
		t.Fatal(err)
	}
	_, err = r.Read(make([]byte, 10))
	if err == nil || !strings.Contains(err.Error(), "shrank to 10 bytes after 100 were read") {
		t.Errorf("read after a truncate: %v", err)
	}
}

// A pipe or a directory is refused, saying what it is.
func TestNotAFile(t *testing.T) {
	_, err := Open(context.Background(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Open(a directory): %v", err)
	}
	if _, err := Open(context.Background(), filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(no file): %v", err)
	}
}
