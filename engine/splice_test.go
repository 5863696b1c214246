package engine

import (
	"bytes"
	"testing"

	"github.com/rdmalab/rdmalab/engine/nfsd"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
	"github.com/rdmalab/rdmalab/engine/xprt"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
)

// readData decodes a READ reply and returns its data, from the Write
// chunk when there is one.
func readData(t *testing.T, k *xprt.Call) (nfs.Read3Res, []byte) {
	t.Helper()
	msg := replyOf(t, k)
	var rh oncrpc.ReplyHeader
	off, err := rh.Decode(msg)
	if err != nil || rh.AcceptStat != oncrpc.Success {
		t.Fatalf("reply header %+v %v", rh, err)
	}
	var res nfs.Read3Res
	if _, err := res.Decode(msg[off:], nfs.DataAuto); err != nil {
		t.Fatalf("READ3res: %v", err)
	}
	if len(k.Reply.WriteChunks) > 0 {
		return res, k.Reply.WriteChunks[0]
	}
	return res, res.Data
}

// A READ's reply pages are the file's page-cache pages, lent by
// svc_rqst_replace_page rather than copied, from the page holding the
// offset on; the client still gets the file's bytes.
func TestReadSplicesPageCache(t *testing.T) {
	for _, tc := range []struct{ off, n int }{{0, 20000}, {5000, 10000}, {4096, 4096}} {
		l := newLab(t, nil)
		if _, err := l.Write(65536, ChunkOpts{}); err != nil {
			t.Fatal(err)
		}
		settle(t, l)
		f := l.NFS.Lookup("data")
		k, err := l.Call(xprt.CallSpec{Msg: nfsd.ReadCall(f.FH, uint64(tc.off), uint32(tc.n)),
			WriteChunks: []xprt.WriteChunkSpec{{Segments: []xprt.SegSpec{{Len: tc.n}}}}})
		if err != nil {
			t.Fatal(err)
		}
		// Deliver the call and let the thread post the reply; the Send
		// and its RDMA Writes stay on the wire, the pages with the ctxt.
		l.Continue()
		if _, err := l.Complete(-1, nil); err != nil {
			t.Fatal(err)
		}
		l.Continue()
		var lent []*svcrdma.Page
		for _, s := range l.Server.Sends() {
			if s.Kind == "reply" && len(s.Pages) > 0 {
				lent = s.Pages[1:] // after the head
			}
		}
		first, last := tc.off/4096, (tc.off+tc.n-1)/4096
		if len(lent) != last-first+1 {
			t.Fatalf("off %d n %d: the reply holds %d data pages, want %d", tc.off, tc.n, len(lent), last-first+1)
		}
		for i, p := range lent {
			if p != f.Page(first+i) || !p.Lent() {
				t.Errorf("off %d n %d: reply page %d is %s, want the file's page %d", tc.off, tc.n, i, p.Name(), first+i)
			}
		}
		settle(t, l)
		res, data := readData(t, k)
		want := Pattern(l.Set.Seed, 0, 65536)[tc.off : tc.off+tc.n]
		if res.Status != nfs.NFS3OK || int(res.Count) != tc.n || !bytes.Equal(data, want) {
			t.Fatalf("off %d n %d: status %v count %d, %d bytes that differ from the file", tc.off, tc.n, res.Status, res.Count, len(data))
		}
		checkIdle(t, l)
	}
}

// A READ whose reply is never sent (its Write chunk is too small: the
// reply shrinks to SYSTEM_ERR) leaves file pages in the thread's slots;
// the next call must not have its data land in them.
func TestUnsentSpliceLeavesRqPages(t *testing.T) {
	l := newLab(t, nil)
	const n = 65536
	if _, err := l.Write(n, ChunkOpts{}); err != nil {
		t.Fatal(err)
	}
	settle(t, l)
	k, err := l.Read(n, ChunkOpts{ChunkLen: 4096})
	if err != nil {
		t.Fatal(err)
	}
	settle(t, l)
	if msg := replyOf(t, k); len(msg) == 0 {
		t.Fatal("no reply to the READ")
	}
	for _, rq := range l.Rqsts {
		for i, p := range rq.Pages {
			if p.Lent() {
				t.Errorf("%s: rq_pages[%d] is the file's %s after svc_alloc_arg", rq.Name, i, p.Name())
			}
		}
	}
	// A WRITE's RDMA Reads land in the thread's pages, then nfsd copies
	// them to the file.
	if _, err := l.Write(n, ChunkOpts{}); err != nil {
		t.Fatal(err)
	}
	settle(t, l)
	if got := l.NFS.Lookup("data").Bytes(); !bytes.Equal(got, Pattern(l.Set.Seed, 0, n)) {
		t.Fatal("the WRITE after an unsent spliced READ corrupted the file")
	}
	k, err = l.Read(n, ChunkOpts{})
	if err != nil {
		t.Fatal(err)
	}
	settle(t, l)
	if _, data := readData(t, k); !bytes.Equal(data, Pattern(l.Set.Seed, 0, n)) {
		t.Fatal("the READ after it returned bytes that differ from the file")
	}
	checkIdle(t, l)
}

// A READ asks for no more than the thread's pages hold after the head.
func TestReadClampedToThreadPages(t *testing.T) {
	l := newLab(t, nil)
	const n = 2 << 20
	if _, err := l.NFS.Lookup("data").WriteAt(Pattern(l.Set.Seed, 0, n), 0); err != nil {
		t.Fatal(err)
	}
	k, err := l.Read(n, ChunkOpts{})
	if err != nil {
		t.Fatal(err)
	}
	settle(t, l)
	res, data := readData(t, k)
	max := (l.Server.MaxPages - 1) * l.Server.PageSize
	if res.Status != nfs.NFS3OK || int(res.Count) != max || res.EOF || !bytes.Equal(data[:res.Count], Pattern(l.Set.Seed, 0, n)[:max]) {
		t.Fatalf("status %v count %d eof %v (want %d bytes, not EOF, the file's)", res.Status, res.Count, res.EOF, max)
	}
	checkIdle(t, l)
}
