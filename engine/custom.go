package engine

import (
	"fmt"

	"github.com/rdmalab/rdmalab/engine/nfsd"
	"github.com/rdmalab/rdmalab/engine/xprt"
)

// CustomRead is one Read chunk of a custom call: these segments at XDR
// position Pos, or where the WRITE's data begins (AtData).
type CustomRead struct {
	Pos      int
	AtData   bool
	Segments []xprt.SegSpec
}

// Custom is a call shaped by hand: an NFSv3 WRITE of pattern data to the
// file "data" with the chunks asked for.
type Custom struct {
	Reads  []CustomRead
	Writes [][]xprt.SegSpec
	Reply  []xprt.SegSpec // nil: no Reply chunk
	// Data is the WRITE's data length; below 0, what puts every position
	// asked for inside the message.
	Data int
}

// CustomWrite issues c. The whole call is sized, and bounded by
// xprt.MaxCallBytes, before its message is built: the lengths are a
// learner's (or a lesson's), and a few words can ask for gigabytes.
func (l *Lab) CustomWrite(c Custom) (*xprt.Call, error) {
	fh := l.NFS.Lookup("data").FH
	_, dataPos := nfsd.WriteCall(fh, 0, nil)
	if c.Data > xprt.MaxCallBytes {
		return nil, fmt.Errorf("the WRITE's %d bytes of data are over the %d bytes (%d MiB) a whole call carries", c.Data, xprt.MaxCallBytes, xprt.MaxCallBytes>>20)
	}
	reads := make([]xprt.ReadChunkSpec, len(c.Reads))
	for i, r := range c.Reads {
		reads[i] = xprt.ReadChunkSpec{Pos: r.Pos, Segments: r.Segments}
		if r.AtData {
			reads[i].Pos = dataPos
		}
		if reads[i].Pos < 0 || reads[i].Pos > xprt.MaxCallBytes {
			return nil, fmt.Errorf("read chunk %d: position %d is outside any call: one carries at most %d bytes (%d MiB)", i, reads[i].Pos, xprt.MaxCallBytes, xprt.MaxCallBytes>>20)
		}
		for j, s := range r.Segments {
			if s.Len < 0 || s.Len > xprt.MaxCallBytes {
				return nil, fmt.Errorf("read chunk %d segment %d: a length of %d is outside what a call carries, 0..%d bytes (%d MiB)", i, j, s.Len, xprt.MaxCallBytes, xprt.MaxCallBytes>>20)
			}
			reads[i].Len += s.Len
		}
	}
	n, pz, rest := customData(reads, dataPos, c.Data)
	spec := xprt.CallSpec{ReadChunks: reads}
	for _, w := range c.Writes {
		spec.WriteChunks = append(spec.WriteChunks, xprt.WriteChunkSpec{Segments: w})
	}
	if c.Reply != nil {
		spec.ReplyChunk = &xprt.WriteChunkSpec{Segments: c.Reply}
	}
	// The message WriteCall builds: the data and its XDR pad after dataPos.
	msgLen := dataPos + n + (4-n%4)%4
	if err := xprt.CheckSize(msgLen, spec); err != nil {
		return nil, err
	}
	if want := msgLen - rest; pz >= 0 && reads[pz].Len != want {
		return nil, fmt.Errorf("read chunk %d: a position-zero chunk carries the message less the other Read chunks: %d bytes here (the %d-byte message less %d), not %d",
			pz, want, msgLen, rest, reads[pz].Len)
	}
	for i, r := range reads {
		if i != pz && r.Pos+r.Len > msgLen {
			return nil, fmt.Errorf("read chunk %d: [%d, %d) is outside the %d-byte message (raise --data)", i, r.Pos, r.Pos+r.Len, msgLen)
		}
		// A chunk that ends where the WRITE's data ends has the data's XDR
		// pad after it; one that ends elsewhere has message bytes there.
		reads[i].EndsItem = r.Pos+r.Len == dataPos+n
	}
	spec.Msg, _ = nfsd.WriteCall(fh, 0, Pattern(l.Set.Seed, 0, n))
	spec.Label = fmt.Sprintf("custom WRITE %d", n)
	return l.Call(spec)
}

// customData is the data length of a custom WRITE: data when it is 0 or
// more, else enough for every Read chunk to fall inside the message. A
// position-zero chunk (the first at position 0, pz; -1 for none) carries
// the message less the other chunks (rest bytes): the message is as long
// as all of them together.
func customData(reads []xprt.ReadChunkSpec, dataPos, data int) (n, pz, rest int) {
	pz, end := -1, 0
	for i, r := range reads {
		end = max(end, r.Pos+r.Len)
		if r.Pos == 0 && pz < 0 {
			pz = i
		} else {
			rest += r.Len
		}
	}
	n = max(end-dataPos, 0)
	if pz >= 0 {
		n = max(reads[pz].Len+rest-dataPos, n-reads[pz].Len, 0)
	}
	if data >= 0 {
		n = data
	}
	return n, pz, rest
}
