//go:build unix

package viz

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/replay"
)

// While the replay reads its capture (c builds it to the end), the
// Packets pane's index of the same file waits, and goes on once the
// replay is built: the two passes are not both in memory at once. The
// replay reads a pipe that the test fills, so the action stays in the
// middle of the file for as long as the test wants.
func TestReplayPausesIndex(t *testing.T) {
	const frames = 20000
	path := bigCapture(t, frames)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "replay.pcap")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipe: %v", err)
	}
	rest := make(chan struct{})
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		f.Write(data[:len(data)/2])
		<-rest
		f.Write(data[len(data)/2:])
	}()
	tl, err := replay.OpenFile(fifo, replay.ReadOptions{NoJSON: true})
	if err != nil {
		close(rest)
		t.Fatal(err)
	}
	defer tl.Close()
	src := NewReplaySource(tl)
	if src.Building() != nil {
		t.Fatal("building before any action")
	}
	paused := make(chan struct{}, 1)
	packets := NewLazyCaptureSource(path, "", decode.IndexOptions{Pause: func() <-chan struct{} {
		ch := src.Building()
		if ch != nil {
			select {
			case paused <- struct{}{}:
			default:
			}
		}
		return ch
	}})
	defer packets.Close()

	acted := make(chan error, 1)
	go func() { acted <- src.Act(ActContinue) }()
	waitFor(t, "the replay reading", func() bool { return src.Building() != nil })
	packets.Start()
	select {
	case <-paused:
	case <-time.After(5 * time.Second):
		close(rest)
		t.Fatal("the index did not pause while the replay read")
	}
	if n := packets.Len(); n != 0 {
		t.Errorf("%d packets indexed while the replay read", n)
	}
	close(rest)
	if err := <-acted; err != nil {
		t.Fatal(err)
	}
	if !tl.Done() || src.Building() != nil {
		t.Fatalf("after c: done %v, building %v", tl.Done(), src.Building() != nil)
	}
	waitFor(t, "the index after the replay", func() bool { return packets.Progress().Done })
	if n := packets.Len(); n != frames {
		t.Errorf("%d packets indexed, want %d", n, frames)
	}
}
