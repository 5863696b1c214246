package xprt

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// MaxCallBytes bounds a call as a whole, as the presets bound their data
// at 16 MiB: three times that, room for the largest WRITE's message, as
// much again in Write chunks and in the Reply chunk. Segments and chunks
// are bounded one by one but not their number, so without it one line
// could ask for gigabytes.
const MaxCallBytes = 48 << 20

// MaxLiveBytes bounds what the calls in flight carry together: a client
// holds a call's memory until it is answered, and a script of big calls
// never completed would otherwise hold every one of them.
const MaxLiveBytes = 256 << 20

// CallBytes is what spec carries with a message of msgLen bytes: the
// message (what goes inline or in the call chunk and what its Read chunks
// take from it), the data of Read chunks registered apart (Data), the
// bytes where Read chunks overlap once more for each chunk past the first
// (each is pulled on its own), and the Write and Reply chunks.
func CallBytes(msgLen int, spec CallSpec) int64 { return sizeOf(msgLen, spec).total() }

// callSize is what a call carries, by part.
type callSize struct{ msg, reads, writes, reply int64 }

func sizeOf(msgLen int, spec CallSpec) callSize {
	z := callSize{msg: int64(max(msgLen, 0))}
	var ranges [][2]int
	for _, rc := range spec.ReadChunks {
		switch {
		case rc.Data != nil:
			z.reads = add(z.reads, len(rc.Data))
		case rc.Pos != 0:
			ranges = append(ranges, [2]int{rc.Pos, rc.Len})
		}
	}
	z.reads = add(z.reads, overlap(ranges))
	for _, wc := range spec.WriteChunks {
		z.writes = addSegs(z.writes, wc.Segments)
	}
	if spec.ReplyChunk != nil {
		z.reply = addSegs(z.reply, spec.ReplyChunk.Segments)
	}
	return z
}

func (z callSize) total() int64 {
	return add(add(add(z.msg, int(z.reads)), int(z.writes)), int(z.reply))
}

// add is a+n for n > 0, stopping at math.MaxInt64: lengths come from
// callers and may be anything.
func add(a int64, n int) int64 {
	if n <= 0 {
		return a
	}
	if a > math.MaxInt64-int64(n) {
		return math.MaxInt64
	}
	return a + int64(n)
}

func addSegs(a int64, segs []SegSpec) int64 {
	for _, s := range segs {
		a = add(a, s.Len)
	}
	return a
}

// overlap is how many bytes of the ranges (position, length) lie under
// an earlier range too: what overlapping Read chunks carry twice.
func overlap(ranges [][2]int) int {
	slices.SortFunc(ranges, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	var n int64
	end := math.MinInt
	for _, r := range ranges {
		lo := r[0]
		hi := lo + max(min(r[1], math.MaxInt-lo), 0)
		if lo < end {
			n = add(n, min(hi, end)-lo)
		}
		end = max(end, hi)
	}
	return int(n)
}

// CheckSize says, before anything is allocated for it, whether a call
// of spec's shape with an msgLen-byte message is within MaxCallBytes.
func CheckSize(msgLen int, spec CallSpec) error {
	z := sizeOf(msgLen, spec)
	n := z.total()
	if n <= MaxCallBytes {
		return nil
	}
	parts := []string{fmt.Sprintf("a %d-byte message", z.msg)}
	if z.reads > 0 {
		parts = append(parts, fmt.Sprintf("%d more in Read chunks", z.reads))
	}
	if z.writes > 0 {
		parts = append(parts, fmt.Sprintf("%d in %d Write chunk(s)", z.writes, len(spec.WriteChunks)))
	}
	if z.reply > 0 {
		parts = append(parts, fmt.Sprintf("%d in the Reply chunk", z.reply))
	}
	return fmt.Errorf("a call carries at most %d bytes (%d MiB) in all, its message and its chunks; this one asks for %d (%s)",
		MaxCallBytes, MaxCallBytes>>20, n, strings.Join(parts, ", "))
}

// checkLive says whether a call carrying n bytes fits beside the calls
// in flight, within MaxLiveBytes.
func (c *Client) checkLive(n int64) error {
	var held int64
	for _, k := range c.live {
		held += k.bytes
	}
	if held+n > MaxLiveBytes {
		return fmt.Errorf("the %d call(s) in flight hold %d bytes, and this one carries %d: together over the %d bytes (%d MiB) a client holds unanswered (complete them, or reset)",
			len(c.live), held, n, MaxLiveBytes, MaxLiveBytes>>20)
	}
	return nil
}

// headerLen is the transport header spec's chunks need as RDMA_MSG or
// RDMA_NOMSG (-1 when spec.Proc asks for another), counted before any
// segment is registered.
func headerLen(spec CallSpec, reads []ReadChunkSpec, call []SegSpec) int {
	if spec.Proc != nil && *spec.Proc != rpcrdma.ProcMsg && *spec.Proc != rpcrdma.ProcNoMsg {
		return -1
	}
	n := rpcrdma.HdrLenMin + rpcrdma.ReadEntryLen*len(call)
	for _, rc := range reads {
		n += rpcrdma.ReadEntryLen * len(rc.Segments)
	}
	for _, wc := range spec.WriteChunks {
		n += 8 + rpcrdma.SegmentLen*len(wc.Segments)
	}
	if spec.ReplyChunk != nil {
		n += 4 + rpcrdma.SegmentLen*len(spec.ReplyChunk.Segments)
	}
	return n
}

// segCount is how many segments spec asks the client to register.
func segCount(spec CallSpec) int {
	n := len(spec.CallChunk)
	for _, rc := range spec.ReadChunks {
		n += len(rc.Segments)
	}
	for _, wc := range spec.WriteChunks {
		n += len(wc.Segments)
	}
	if spec.ReplyChunk != nil {
		n += len(spec.ReplyChunk.Segments)
	}
	return n
}
