package analysis

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode/internal/craft"

	"github.com/rdmalab/rdmalab/captures/decode/frame"
)

// TestAnomalies damages the NFSv3 capture in one way at a time and checks
// that --check reports it, at the right frame.
func TestAnomalies(t *testing.T) {
	tests := []struct {
		name  string
		fn    func(fs []craft.Frame) []craft.Frame
		keep  int
		kind  NoteKind
		frame int
	}{
		{"NAK", func(fs []craft.Frame) []craft.Frame { fs[86].Data[craft.OffExt] = 0x60; return fs }, 0, NoteNAK, 87},
		{"RNR NAK", func(fs []craft.Frame) []craft.Frame { fs[4].Data[craft.OffExt] = 0x2e; return fs }, 0, NoteRNRNAK, 5},
		{"PSN gap in a READ response", func(fs []craft.Frame) []craft.Frame { return craft.Drop(fs, 96) }, 0, NotePSNGap, 96},
		{"READ response short", func(fs []craft.Frame) []craft.Frame { return craft.Drop(fs, 96) }, 0, NoteReadShort, 113},
		{"duplicate", func(fs []craft.Frame) []craft.Frame {
			return slices.Insert(fs, 8, craft.Frame{Data: slices.Clone(fs[7].Data)})
		}, 0, NotePSNDuplicate, 9},
		{"out of order", func(fs []craft.Frame) []craft.Frame { fs[251], fs[252] = fs[252], fs[251]; return fs }, 0, NotePSNOutOfOrder, 253},
		{"READ without response", func(fs []craft.Frame) []craft.Frame { return craft.Drop(fs, 215, 216, 217, 218, 219, 220, 221, 222) }, 0, NoteReadNoResponse, 94},
		{"WRITE past the segment", func(fs []craft.Frame) []craft.Frame {
			va := binary.BigEndian.Uint64(fs[67].Data[craft.OffExt:])
			binary.BigEndian.PutUint64(fs[67].Data[craft.OffExt:], va+4094)
			return fs
		}, 0, NoteWritePastSegment, 68},
		{"WRITE to an unknown rkey", func(fs []craft.Frame) []craft.Frame {
			binary.BigEndian.PutUint32(fs[67].Data[craft.OffExt+8:], 0xdead)
			return fs
		}, 0, NoteUnknownRKey, 68},
		{"reply without call", func(fs []craft.Frame) []craft.Frame { return craft.Drop(fs, 66) }, 0, NoteReplyNoCall, 68},
		{"call never answered", func(fs []craft.Frame) []craft.Frame { return craft.Drop(fs, 69) }, 0, NoteCallNoReply, 66},
		{"credits exceeded", func(fs []craft.Frame) []craft.Frame {
			binary.BigEndian.PutUint32(fs[5].Data[craft.OffExt+8:], 0) // the NULL reply grants 0 credits
			return fs
		}, 0, NoteCreditsExceeded, 8},
		{"bad ICRC", func(fs []craft.Frame) []craft.Frame { fs[7].Data[70] ^= 1; return fs }, 8, NoteBadICRC, 8},
		{"malformed BTH", func(fs []craft.Frame) []craft.Frame {
			f := fs[87].Data // a READ request: cut it inside its RETH
			binary.BigEndian.PutUint16(f[16:], 20+8+12+8+4)
			binary.BigEndian.PutUint16(f[38:], 8+12+8+4)
			fs[87].Data = f[:14+20+8+12+8+4]
			return fs
		}, 88, NoteMalformed, 88},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := decodeFile(t, craft.Mutate(t, tc.fn, tc.keep))
			found := false
			for _, n := range d.an.Notes() {
				if n.Kind == tc.kind && n.Frame == tc.frame {
					found = true
					t.Logf("%v", n)
				}
			}
			if !found {
				t.Errorf("no %v at frame %d; notes: %v", tc.kind, tc.frame, d.an.Notes())
			}
		})
	}
}

// TestTruncatedFrameICRCUnknown: a frame the capture cut has an ICRC that
// cannot be checked, which is not an anomaly.
func TestTruncatedFrameICRCUnknown(t *testing.T) {
	d := decodeFile(t, craft.Mutate(t, func(fs []craft.Frame) []craft.Frame { fs[7].CapLen = 80; return fs }, 0))
	p := d.packets[7]
	if p.ICRC.State != frame.CRCUnknown || !p.Truncated || p.Analysis.RPC != nil {
		t.Errorf("frame 8: ICRC %v, truncated %v, RPC %v", p.ICRC.State, p.Truncated, p.Analysis.RPC != nil)
	}
	for _, n := range d.an.Notes() {
		if n.Kind == NoteBadICRC {
			t.Errorf("%v", n)
		}
	}
}

// TestShortSend: a SEND shorter than the 16-byte RPC-over-RDMA header is
// reported as short, not as malformed.
func TestShortSend(t *testing.T) {
	d := decodeFile(t, craft.Mutate(t, func(fs []craft.Frame) []craft.Frame {
		f := fs[3].Data[:craft.OffExt+10+4]
		binary.BigEndian.PutUint16(f[16:], uint16(len(f)-14))
		binary.BigEndian.PutUint16(f[38:], uint16(len(f)-34))
		fs[3].Data = f
		return fs
	}, 0))
	p := d.packets[3]
	if !p.Analysis.Short || p.Analysis.RPC != nil || p.Err != nil {
		t.Errorf("frame 4: short %v, RPC %v, error %v", p.Analysis.Short, p.Analysis.RPC != nil, p.Err)
	}
	for _, n := range d.an.Notes() {
		if n.Kind == NoteMalformed {
			t.Errorf("%v", n)
		}
	}
}

// TestMidStream: a capture that starts after the connection was set up
// says what it cannot know instead of calling it an anomaly.
func TestMidStream(t *testing.T) {
	d := decodeFile(t, craft.Mutate(t, func(fs []craft.Frame) []craft.Frame { return fs[250:] }, 0))
	for _, n := range d.an.Notes() {
		if n.Kind.Anomaly() {
			t.Errorf("anomaly in a capture that starts mid-stream: %v", n)
		}
	}
	unknown := 0
	for _, n := range d.an.Notes() {
		if n.Kind == InfoMidStream {
			unknown++
		}
	}
	if unknown == 0 {
		t.Error("nothing reported as unknown")
	}
}
