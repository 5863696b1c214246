package engine

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/rdmalab/rdmalab/engine/nfsd"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/engine/xprt"
)

// writeRead runs n WRITE+READ pairs of size bytes to completion.
func writeRead(t *testing.T, l *Lab, n, size int) {
	t.Helper()
	for i := 0; i < n; i++ {
		for _, call := range []func() (*xprt.Call, error){
			func() (*xprt.Call, error) { return l.Write(size, ChunkOpts{Segments: 2}) },
			func() (*xprt.Call, error) { return l.Read(size, ChunkOpts{Segments: 2}) },
		} {
			k, err := call()
			if err != nil {
				t.Fatal(err)
			}
			l.Continue()
			if !k.Done || k.Err != "" {
				t.Fatalf("call 0x%x: done %v err %q", k.XID, k.Done, k.Err)
			}
		}
	}
}

func heapInuse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestLabMemoryFlat: a long session's heap does not grow with its calls.
// The bounded rings (events, completions, recent calls, DRC) are filled
// first; after that 2000 more calls may not grow the heap more than a
// little over 500 calls did.
func TestLabMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs thousands of calls")
	}
	const size = 64 << 10
	l := newLab(t, func(s *Settings) { s.AutoComplete = true })
	l.Sched.Quiet = true
	l.SetCapture(false)
	for made := 0; l.seq < 2*maxHistory || made < xprt.RecentCalls; made += 100 {
		writeRead(t, l, 50, size)
	}
	t.Logf("warm-up: %d events, %d calls listed", l.seq, len(l.Client.Calls()))
	base := heapInuse()
	writeRead(t, l, 250, size) // 500 calls
	h500 := heapInuse()
	writeRead(t, l, 750, size) // 2000 calls
	h2000 := heapInuse()
	t.Logf("heap in use: %d KiB after warm-up, %d KiB after 500 calls, %d KiB after 2000", base>>10, h500>>10, h2000>>10)
	// A client that kept each call would hold 2000 × 2 × 64 KiB = 250 MiB
	// more; allow a few MiB of noise.
	const slack = 8 << 20
	if h2000 > h500+slack || h2000 > base+slack {
		t.Errorf("the heap grew with the calls: %d KiB after warm-up, %d after 500 calls, %d after 2000", base>>10, h500>>10, h2000>>10)
	}
	if n := len(l.Client.Calls()); n > xprt.RecentCalls {
		t.Errorf("the client lists %d calls, want at most %d", n, xprt.RecentCalls)
	}
}

// TestFinishedCallsReleased: a finished call has deregistered its memory
// and left the calls in flight; the client remembers a window of recent
// calls, the newest whole and the older as summaries.
func TestFinishedCallsReleased(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.AutoComplete = true })
	w, err := l.Write(20000, ChunkOpts{Segments: 2})
	if err != nil {
		t.Fatal(err)
	}
	l.Continue()
	r, err := l.Read(20000, ChunkOpts{Segments: 2})
	if err != nil {
		t.Fatal(err)
	}
	l.Continue()
	for _, k := range []*xprt.Call{w, r} {
		if !k.Done || len(k.Segs) != 2 {
			t.Fatalf("call 0x%x: done %v, %d segments", k.XID, k.Done, len(k.Segs))
		}
		for _, s := range k.Segs {
			// The client deregistered it: the key is gone, a second
			// deregistration is EINVAL.
			if err := s.MR.Dereg(); !errors.Is(err, verbs.EINVAL) {
				t.Errorf("call 0x%x %s: MR still registered (dereg: %v)", k.XID, s.Kind, err)
			}
		}
	}
	if n := l.Client.Outstanding(); n != 0 {
		t.Errorf("%d calls outstanding after both replies", n)
	}
	want := Pattern(l.Set.Seed, 0, 20000)
	if got := l.Client.CallByXID(r.XID); got != r || !bytes.Equal(got.Reply.WriteChunks[0], want) {
		t.Fatalf("the newest call is not kept whole")
	}

	// Push both out of the whole window, then out of the recent window.
	writeRead(t, l, 4, 512)
	sum := l.Client.CallByXID(r.XID)
	if sum == nil || !sum.Summary || sum == r || sum.Reply.Message(0) != nil {
		t.Fatalf("an older call is not a summary: %+v", sum)
	}
	if d := sum.Segs[0].Data(); !bytes.Equal(d, want[:xprt.SummaryHead]) {
		t.Errorf("summary's segment head % x, want % x", d, want[:xprt.SummaryHead])
	}
	if r.Summary || !bytes.Equal(r.Reply.WriteChunks[0], want) {
		t.Errorf("the caller's call lost its reply data")
	}
	writeRead(t, l, xprt.RecentCalls/2, 512)
	if k := l.Client.CallByXID(w.XID); k != nil {
		t.Errorf("call 0x%x still known after %d more calls", w.XID, xprt.RecentCalls)
	}
	calls := l.Client.Calls()
	if len(calls) != xprt.RecentCalls {
		t.Fatalf("%d calls listed, want %d", len(calls), xprt.RecentCalls)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].XID != calls[i-1].XID+1 {
			t.Fatalf("calls out of order: 0x%x after 0x%x", calls[i].XID, calls[i-1].XID)
		}
	}
	snap := l.Snapshot()
	if last := snap.Calls[len(snap.Calls)-1]; last.XID != fmt.Sprintf("0x%x", calls[len(calls)-1].XID) || last.State != "answered" {
		t.Errorf("snapshot's last call %+v", last)
	}
}

// TestAbandonedCallsReleased: a lost connection ends the calls in flight.
func TestAbandonedCallsReleased(t *testing.T) {
	l := newLab(t, nil)
	k, err := l.Write(8192, ChunkOpts{})
	if err != nil {
		t.Fatal(err)
	}
	l.Disconnect()
	settle(t, l)
	if l.Client.Outstanding() != 0 || k.Done || k.Err == "" {
		t.Fatalf("after a disconnect: %d outstanding, done %v, err %q", l.Client.Outstanding(), k.Done, k.Err)
	}
	if err := k.Segs[0].MR.Dereg(); !errors.Is(err, verbs.EINVAL) {
		t.Errorf("abandoned call's MR still registered (dereg: %v)", err)
	}
	if got := l.Client.CallByXID(k.XID); got != k {
		t.Errorf("the abandoned call is not among the recent ones")
	}
}

// TestDRCBounded: the DRC and the list of evicted entries stay bounded,
// with the reply-position patch (entries go when acknowledged) and
// without it (no entry is ever acknowledged).
func TestDRCBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a thousand calls")
	}
	for _, positions := range []bool{true, false} {
		l := newLab(t, func(s *Settings) { s.AutoComplete, s.Positions = true, positions })
		l.Sched.Quiet = true
		for i := 0; i < nfsd.MaxDRC+100; i++ {
			if _, err := l.Write(64, ChunkOpts{Inline: true}); err != nil {
				t.Fatal(err)
			}
			l.Continue()
		}
		if n, m := len(l.NFS.DRC), len(l.NFS.Evicted); n > nfsd.MaxDRC || m > nfsd.MaxEvicted {
			t.Errorf("positions %v: %d DRC entries, %d evicted kept; want at most %d and %d", positions, n, m, nfsd.MaxDRC, nfsd.MaxEvicted)
		}
		if !positions && len(l.NFS.DRC) != nfsd.MaxDRC {
			t.Errorf("positions off: %d DRC entries, want it full at %d", len(l.NFS.DRC), nfsd.MaxDRC)
		}
		if positions && len(l.NFS.Evicted) != nfsd.MaxEvicted {
			t.Errorf("positions on: %d evicted entries kept, want the last %d", len(l.NFS.Evicted), nfsd.MaxEvicted)
		}
	}
}

// TestRecycledChunkBuffers: with Client.Recycle, a READ's Write chunk
// buffers go to a later call once the READ shrinks to a summary; the
// later call sees zeroes until the server writes, then its own data, and
// the summary keeps its head.
func TestRecycledChunkBuffers(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.AutoComplete = true })
	l.Client.Recycle = true
	want := Pattern(l.Set.Seed, 0, 20000)
	read := func() *xprt.Call {
		t.Helper()
		k, err := l.Read(20000, ChunkOpts{Segments: 2})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	w, err := l.Write(20000, ChunkOpts{Segments: 2})
	if err != nil {
		t.Fatal(err)
	}
	l.Continue()
	r1 := read()
	l.Continue()
	first := map[*byte]bool{}
	for _, s := range r1.Segs {
		first[&s.Buf[:1][0]] = true
	}
	writeRead(t, l, 4, 512) // r1 leaves the whole calls
	r2 := read()
	reused := 0
	for _, s := range r2.Segs {
		if first[&s.Buf[:1][0]] {
			reused++
		}
		if !bytes.Equal(s.Data(), make([]byte, len(s.Data()))) {
			t.Errorf("%s of the new READ holds old bytes before the server wrote", s.Kind)
		}
	}
	if reused != len(r2.Segs) {
		t.Errorf("%d of %d Write chunk buffers reused", reused, len(r2.Segs))
	}
	l.Continue()
	if !r2.Done || !bytes.Equal(r2.Reply.WriteChunks[0], want) {
		t.Fatalf("the READ into recycled buffers got %d bytes, done %v", len(r2.Reply.WriteChunks[0]), r2.Done)
	}
	if sum := l.Client.CallByXID(r1.XID); sum == nil || !sum.Summary || !bytes.Equal(sum.Segs[0].Data(), want[:xprt.SummaryHead]) {
		t.Errorf("the recycled call's summary lost its head")
	}
	// The WRITE registered the caller's data: it is never recycled.
	for _, s := range w.Segs {
		if !bytes.Equal(s.Data(), want[:len(s.Data())]) && !bytes.Contains(want, s.Data()) {
			t.Errorf("the WRITE's %s was overwritten", s.Kind)
		}
	}
}

// TestRecycledBufferShorterRead: a READ shorter than its Write chunk, into
// the buffers a longer READ filled, shows zeroes past its data (and in
// the page-offset padding), byte for byte what fresh buffers show, whether
// the buffers are first read before the server writes or after.
func TestRecycledBufferShorterRead(t *testing.T) {
	const long, short = 20000, 12000
	opts := ChunkOpts{Segments: 2, PageOff: 100}
	// run returns the short READ and, with peek, its segments' bytes
	// before the server wrote.
	run := func(recycle, peek bool) (r2 *xprt.Call, early [][]byte) {
		l := newLab(t, func(s *Settings) { s.AutoComplete = true })
		l.Client.Recycle = recycle
		if _, err := l.Write(long, ChunkOpts{Segments: 2}); err != nil {
			t.Fatal(err)
		}
		l.Continue()
		r1, err := l.Read(long, opts)
		if err != nil {
			t.Fatal(err)
		}
		l.Continue()
		first := map[*byte]bool{}
		for _, s := range r1.Segs {
			first[&s.Buf[:1][0]] = true
		}
		writeRead(t, l, 4, 512) // r1 leaves the whole calls
		o := opts
		o.ChunkLen = long
		if r2, err = l.Read(short, o); err != nil {
			t.Fatal(err)
		}
		reused := 0
		for _, s := range r2.Segs {
			if first[&s.Buf[:1][0]] {
				reused++
			}
			if peek {
				early = append(early, bytes.Clone(s.Data()))
			}
		}
		if recycle && (reused != len(r2.Segs) || reused != 2) {
			t.Fatalf("%d of %d Write chunk buffers reused: the test needs both", reused, len(r2.Segs))
		}
		l.Continue()
		if !r2.Done || r2.Err != "" {
			t.Fatalf("recycle %v: the short READ: done %v, err %q", recycle, r2.Done, r2.Err)
		}
		return r2, early
	}
	fresh, freshEarly := run(false, true)
	want := Pattern(DefaultSettings().Seed, 0, short)
	for _, peek := range []bool{false, true} {
		got, gotEarly := run(true, peek)
		if !bytes.Equal(got.Reply.WriteChunks[0], want) {
			t.Errorf("peek %v: the short READ into recycled buffers got %d bytes, not the file's first %d", peek, len(got.Reply.WriteChunks[0]), short)
		}
		var data []byte
		for i, s := range got.Segs {
			f := fresh.Segs[i]
			if peek && !bytes.Equal(gotEarly[i], freshEarly[i]) {
				t.Errorf("segment %d (%s) before the server wrote: recycled and fresh buffers differ", i, s.Kind)
			}
			if !bytes.Equal(s.Buf, f.Buf) {
				t.Errorf("peek %v: segment %d (%s): recycled buffer differs from a fresh one", peek, i, s.Kind)
			}
			if !bytes.Equal(s.Data(), f.Data()) {
				t.Errorf("peek %v: segment %d (%s): recycled data differs from a fresh buffer's", peek, i, s.Kind)
			}
			data = append(data, s.Data()...)
		}
		if !bytes.Equal(data[:short], want) || !bytes.Equal(data[short:], make([]byte, long-short)) {
			t.Errorf("peek %v: the chunk is not the file's first %d bytes then zeroes", peek, short)
		}
	}
}

// TestSnapshotCallsCached: a snapshot reuses the last one's line for an
// answered call shrunk to a summary, and every line is still the one the
// call gives now, through calls in flight, answered, failed and shrunk,
// and past the snapshot's window.
func TestSnapshotCallsCached(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.AutoComplete = true })
	check := func(when string) {
		t.Helper()
		calls := l.Client.Calls()
		calls = calls[max(0, len(calls)-snapshotCalls):]
		got := l.Snapshot().Calls
		if len(got) != len(calls) {
			t.Fatalf("%s: %d calls in the snapshot, want %d", when, len(got), len(calls))
		}
		for i, k := range calls {
			if want := l.callSnap(k); !reflect.DeepEqual(got[i], want) {
				t.Fatalf("%s: call %d of the snapshot is %+v, want %+v", when, i, got[i], want)
			}
		}
	}
	for i := 0; i < snapshotCalls+40; i++ {
		var err error
		switch i % 3 {
		case 0:
			_, err = l.Write(8192, ChunkOpts{})
		case 1:
			_, err = l.Read(4096, ChunkOpts{})
		default: // a Write chunk too small: answered with an error
			_, err = l.Read(8192, ChunkOpts{ChunkLen: 4096})
		}
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("call %d prepared", i))
		for steps := 0; l.Step(); steps++ {
			if steps%7 == 0 {
				check(fmt.Sprintf("call %d, step %d", i, steps))
			}
		}
		check(fmt.Sprintf("call %d settled", i))
	}
	if n := len(l.callSnaps.keys); n < snapshotCalls-10 {
		t.Errorf("%d calls cached of %d: the summaries' lines are not reused", n, snapshotCalls)
	}
}
