package decode

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/internal/follow"
	"github.com/rdmalab/rdmalab/internal/testutil"
)

// An index of a stream grows as the stream does, without holding its
// lock while it waits for more (a reader gets the packets so far), ends
// with the stream, and closes while waiting.
func TestIndexStream(t *testing.T) {
	data := testutil.ReadCapture(t, "sim-nfs3.pcap")
	path := filepath.Join(t.TempDir(), "stream.pcap")
	half := len(data) / 2
	if err := os.WriteFile(path, data[:half], 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(ctx context.Context) *Index {
		rf, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		x, err := OpenIndexStream("stream", follow.New(ctx, rf), rf, IndexOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	ctx, ended := context.WithCancel(context.Background())
	x := open(ctx)
	defer x.Close()
	// The first half's packets, while the reader waits for the rest.
	wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n, err := x.Wait(wctx, 10)
	if err != nil || n < 10 {
		t.Fatalf("Wait(10) = %d, %v", n, err)
	}
	time.Sleep(200 * time.Millisecond)
	if pr := x.Progress(); pr.Done || pr.Packets >= 47 {
		t.Fatalf("after half the file: %+v", pr)
	}
	if s := x.Summary(0); s == "" {
		t.Error("no summary of packet 1 while the stream waits")
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(data[half:])
	f.Close()
	if n, err := x.Wait(wctx, 47); err != nil || n != 47 {
		t.Fatalf("Wait(47) = %d, %v", n, err)
	}
	ended()
	if n, err := x.Wait(wctx, -1); err != nil || n != 47 || !x.Progress().Done || x.Progress().Err != nil {
		t.Fatalf("after the stream ended: %d, %v, %+v", n, err, x.Progress())
	}
	if x.Analyzer() == nil {
		t.Error("no analysis at the end of the stream")
	}

	// Close while the reader waits for more returns.
	y := open(context.Background())
	if _, err := y.Wait(wctx, 47); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { y.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close of a waiting stream's index did not return")
	}
}
