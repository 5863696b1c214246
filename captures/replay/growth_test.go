package replay

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
	"github.com/rdmalab/rdmalab/proto/xdr"
)

// bigRead is an NFSv3 WRITE whose n KiB of data the server pulls with one
// RDMA READ, answered in n responses of 1 KiB.
func bigRead(t testing.TB, n int) *conv {
	c := newConv(t)
	const xid, rkey = 0x0b160001, 0x77
	args := xdrOf(func(w *xdr.Writer) {
		w.OpaqueVar([]byte{1, 2, 3, 4})
		w.Uint64(0)
		w.Uint32(uint32(n << 10))
		w.Uint32(2)
		w.Uint32(uint32(n << 10))
	})
	h := rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg, ReadList: []rpcrdma.ReadSegment{{Position: 0,
		Segment: rpcrdma.Segment{Handle: rkey, Length: uint32(n << 10), Offset: 0x10000}}}}
	msg := nfsCall(xid, 3, 7, "m", args)
	h.ReadList[0].Position = uint32(len(msg))
	c.clientSend(rdmaMsg(h, msg))
	psn := c.serverPSN
	c.fromServer(&ib.BTH{Opcode: ib.OpcodeRCReadRequest, PSN: psn, A: true,
		RETH: ib.RETH{VA: 0x10000, RKey: rkey, DMALen: uint32(n << 10)}}, nil)
	c.serverPSN += uint32(n)
	c.clientMSN++
	data := make([]byte, 1024)
	for i := range n {
		op := ib.OpcodeRCReadResponseMid
		bth := &ib.BTH{PSN: psn + uint32(i)}
		switch {
		case n == 1:
			op = ib.OpcodeRCReadResponseOnly
		case i == 0:
			op = ib.OpcodeRCReadResponseFirst
		case i == n-1:
			op = ib.OpcodeRCReadResponseLast
		}
		bth.Opcode = op
		if op != ib.OpcodeRCReadResponseMid {
			bth.AETH = ackAETH(c.clientMSN)
		}
		c.fromClient(bth, data)
	}
	c.serverSend(rdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}, nfsReply(xid, []byte{0, 0, 0, 0})))
	return c
}

// Stepping through a READ of n responses, the view's picture at every
// step, grows with n, not n²: each step's pages were cut again from every
// response landed so far.
var snapshots = true

func BenchmarkReplayViewBigRead(b *testing.B) {
	for _, n := range []int{1 << 10, 4 << 10, 16 << 10} {
		data := bigRead(b, n).pcap()
		b.Run(fmt.Sprintf("responses=%d", n), func(b *testing.B) {
			for b.Loop() {
				tl, err := Read(bytes.NewReader(data), "big.pcap")
				if err != nil {
					b.Fatal(err)
				}
				p := tl.Player()
				for p.Forward() {
					if snapshots {
						_ = p.Snapshot()
					}
				}
			}
		})
	}
}

// The pages of each picture, drawn from the last picture's, are those cut
// anew from every byte landed; seeking back and forth (clones sharing
// runs, merged runs) draws each step as stepping forward drew it.
func TestReplayPagesAsCutAnew(t *testing.T) {
	tl, err := Read(bytes.NewReader(bigRead(t, 40).pcap()), "big.pcap")
	if err != nil {
		t.Fatal(err)
	}
	p := tl.Player()
	var want []string
	for p.Forward() {
		s := p.Snapshot()
		want = append(want, fmt.Sprint(s.Reads))
		for i := range p.st.reads {
			r := p.st.reads[i] // a copy, drawn from nothing
			r.drawn = nil
			if got, fresh := fmt.Sprint(s.Reads[i].Pages), fmt.Sprint(r.pages(p.st.pageSize)); got != fresh {
				t.Fatalf("step %d: pages\n%s\ncut anew\n%s", p.At(), got, fresh)
			}
		}
	}
	var most int
	for _, w := range want {
		most = max(most, strings.Count(w, "pg"))
	}
	if most < 10 {
		t.Fatalf("no step drew the READ's pages: %v", want)
	}
	p.Seek(len(want) / 2)
	if rs := p.st.reads; len(rs) != 1 || !rs[0].dense || len(rs[0].runs) != 1 {
		t.Fatalf("the READ half way: %+v", rs)
	}
	for _, at := range []int{len(want) - 1, 3, 20, 2, len(want) - 2, 21, 0, 22} {
		p.Seek(at)
		if got := fmt.Sprint(p.Snapshot().Reads); got != want[at] {
			t.Fatalf("seek %d: %s\nwant %s", at, got, want[at])
		}
		if p.Forward() {
			if got := fmt.Sprint(p.Snapshot().Reads); got != want[at+1] {
				t.Fatalf("seek %d, forward: %s\nwant %s", at, got, want[at+1])
			}
		}
	}
}
