package decode

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/gopacket"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// A RoCEv2 frame of the kernel captures: Ethernet (14), IPv4 (20), UDP (8),
// then the BTH at 42 and the first extension header (or payload) at 54.
const (
	offBTH = 42
	offExt = 54
)

type capFrame struct {
	data   []byte
	caplen int // 0: all of data
}

// mutate rewrites nfs3-rdma.pcap through fn, fixes every ICRC unless keep
// says which frame (1-based, after fn) keeps its old one, and returns the
// path of the result.
func mutate(t *testing.T, fn func(fs []capFrame) []capFrame, keepICRC int) string {
	t.Helper()
	r, err := pcapfile.Open(testutil.Capture(t, "nfs3-rdma.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var fs []capFrame
	var rec pcapfile.Record
	for r.Next(&rec) == nil {
		fs = append(fs, capFrame{data: append([]byte(nil), rec.Data...)})
	}
	fs = fn(fs)
	path := filepath.Join(t.TempDir(), "mutated.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := pcapfile.NewWriter(f, pcapfile.LinkTypeEthernet, 262144)
	if err != nil {
		t.Fatal(err)
	}
	for i, fr := range fs {
		if i+1 != keepICRC {
			end := 14 + int(binary.BigEndian.Uint16(fr.data[16:]))
			if err := ib.SetRoCEv2ICRC(fr.data[14:end]); err != nil {
				t.Fatalf("frame %d: %v", i+1, err)
			}
		}
		data := fr.data
		if fr.caplen > 0 {
			data = data[:fr.caplen]
		}
		if err := w.WritePacket(gopacket.CaptureInfo{CaptureLength: len(data), Length: len(fr.data)}, data); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func drop(fs []capFrame, frames ...int) []capFrame {
	var out []capFrame
	for i, f := range fs {
		if !slices.Contains(frames, i+1) {
			out = append(out, f)
		}
	}
	return out
}

// TestAnomalies damages the NFSv3 capture in one way at a time and checks
// that --check reports it, at the right frame.
func TestAnomalies(t *testing.T) {
	tests := []struct {
		name  string
		fn    func(fs []capFrame) []capFrame
		keep  int
		kind  analysis.NoteKind
		frame int
	}{
		{"NAK", func(fs []capFrame) []capFrame { fs[86].data[offExt] = 0x60; return fs }, 0, analysis.NoteNAK, 87},
		{"RNR NAK", func(fs []capFrame) []capFrame { fs[4].data[offExt] = 0x2e; return fs }, 0, analysis.NoteRNRNAK, 5},
		{"PSN gap in a READ response", func(fs []capFrame) []capFrame { return drop(fs, 96) }, 0, analysis.NotePSNGap, 96},
		{"READ response short", func(fs []capFrame) []capFrame { return drop(fs, 96) }, 0, analysis.NoteReadShort, 113},
		{"duplicate", func(fs []capFrame) []capFrame { return slices.Insert(fs, 8, capFrame{data: slices.Clone(fs[7].data)}) }, 0, analysis.NotePSNDuplicate, 9},
		{"out of order", func(fs []capFrame) []capFrame { fs[251], fs[252] = fs[252], fs[251]; return fs }, 0, analysis.NotePSNOutOfOrder, 253},
		{"READ without response", func(fs []capFrame) []capFrame { return drop(fs, 215, 216, 217, 218, 219, 220, 221, 222) }, 0, analysis.NoteReadNoResponse, 94},
		{"WRITE past the segment", func(fs []capFrame) []capFrame {
			va := binary.BigEndian.Uint64(fs[67].data[offExt:])
			binary.BigEndian.PutUint64(fs[67].data[offExt:], va+4094)
			return fs
		}, 0, analysis.NoteWritePastSegment, 68},
		{"WRITE to an unknown rkey", func(fs []capFrame) []capFrame {
			binary.BigEndian.PutUint32(fs[67].data[offExt+8:], 0xdead)
			return fs
		}, 0, analysis.NoteUnknownRKey, 68},
		{"reply without call", func(fs []capFrame) []capFrame { return drop(fs, 66) }, 0, analysis.NoteReplyNoCall, 68},
		{"call never answered", func(fs []capFrame) []capFrame { return drop(fs, 69) }, 0, analysis.NoteCallNoReply, 66},
		{"credits exceeded", func(fs []capFrame) []capFrame {
			binary.BigEndian.PutUint32(fs[5].data[offExt+8:], 0) // the NULL reply grants 0 credits
			return fs
		}, 0, analysis.NoteCreditsExceeded, 8},
		{"bad ICRC", func(fs []capFrame) []capFrame { fs[7].data[70] ^= 1; return fs }, 8, analysis.NoteBadICRC, 8},
		{"malformed BTH", func(fs []capFrame) []capFrame {
			f := fs[87].data // a READ request: cut it inside its RETH
			binary.BigEndian.PutUint16(f[16:], 20+8+12+8+4)
			binary.BigEndian.PutUint16(f[38:], 8+12+8+4)
			fs[87].data = f[:14+20+8+12+8+4]
			return fs
		}, 88, analysis.NoteMalformed, 88},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := decodeFile(t, mutate(t, tc.fn, tc.keep))
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
	d := decodeFile(t, mutate(t, func(fs []capFrame) []capFrame { fs[7].caplen = 80; return fs }, 0))
	p := d.packets[7]
	if p.ICRC.State != frame.CRCUnknown || !p.Truncated || p.Analysis.RPC != nil {
		t.Errorf("frame 8: ICRC %v, truncated %v, RPC %v", p.ICRC.State, p.Truncated, p.Analysis.RPC != nil)
	}
	for _, n := range d.an.Notes() {
		if n.Kind == analysis.NoteBadICRC {
			t.Errorf("%v", n)
		}
	}
}

// TestShortSend: a SEND shorter than the 16-byte RPC-over-RDMA header is
// reported as short, not as malformed.
func TestShortSend(t *testing.T) {
	d := decodeFile(t, mutate(t, func(fs []capFrame) []capFrame {
		f := fs[3].data[:offExt+10+4]
		binary.BigEndian.PutUint16(f[16:], uint16(len(f)-14))
		binary.BigEndian.PutUint16(f[38:], uint16(len(f)-34))
		fs[3].data = f
		return fs
	}, 0))
	p := d.packets[3]
	if !p.Analysis.Short || p.Analysis.RPC != nil || p.Err != nil {
		t.Errorf("frame 4: short %v, RPC %v, error %v", p.Analysis.Short, p.Analysis.RPC != nil, p.Err)
	}
	for _, n := range d.an.Notes() {
		if n.Kind == analysis.NoteMalformed {
			t.Errorf("%v", n)
		}
	}
}

// TestMidStream: a capture that starts after the connection was set up
// says what it cannot know instead of calling it an anomaly.
func TestMidStream(t *testing.T) {
	d := decodeFile(t, mutate(t, func(fs []capFrame) []capFrame { return fs[250:] }, 0))
	for _, n := range d.an.Notes() {
		if n.Kind.Anomaly() {
			t.Errorf("anomaly in a capture that starts mid-stream: %v", n)
		}
	}
	unknown := 0
	for _, n := range d.an.Notes() {
		if n.Kind == analysis.InfoMidStream {
			unknown++
		}
	}
	if unknown == 0 {
		t.Error("nothing reported as unknown")
	}
}

// TestRDMAError turns the reply of frame 6 into an RDMA_ERROR (ERR_VERS):
// it answers the call of frame 4 and is reported.
func TestRDMAError(t *testing.T) {
	d := decodeFile(t, mutate(t, func(fs []capFrame) []capFrame {
		f := fs[5].data
		body := f[offExt : offExt+28]
		binary.BigEndian.PutUint32(body[12:], 4) // RDMA_ERROR
		binary.BigEndian.PutUint32(body[16:], 1) // ERR_VERS
		binary.BigEndian.PutUint32(body[20:], 1)
		binary.BigEndian.PutUint32(body[24:], 1)
		f = f[:offExt+28+4]
		binary.BigEndian.PutUint16(f[16:], uint16(len(f)-14))
		binary.BigEndian.PutUint16(f[38:], uint16(len(f)-34))
		fs[5].data = f
		return fs
	}, 0))
	r := d.an.RPCs()[0]
	if r.Reply == nil || r.Reply.Header.Proc != 4 || r.ReplySummary != "RDMA_ERROR ERR_VERS" || r.Call.Frame != 4 {
		t.Fatalf("RPC %+v, reply summary %q", r, r.ReplySummary)
	}
	found := false
	for _, n := range d.an.Notes() {
		found = found || n.Kind == analysis.NoteRPCError && n.Frame == 6
	}
	if !found {
		t.Errorf("no RDMA_ERROR note: %v", d.an.Notes())
	}
	if !strings.Contains(d.lines[5], "RDMA_ERROR ERR_VERS (call in 4) [RDMA_ERROR XID 0x3adbd665") {
		t.Errorf("frame 6: %s", d.lines[5])
	}
}

// TestSkipCRCs: with Options.SkipCRCs a bad ICRC is neither checked nor
// noted, every ICRC is unknown with the wire's value, and what --rpc
// prints is what it prints with the CRCs checked.
func TestSkipCRCs(t *testing.T) {
	path := mutate(t, func(fs []capFrame) []capFrame { fs[7].data[70] ^= 1; return fs }, 8)
	decode := func(opt analysis.Options) (crcs []frame.CRCCheck, table string, bad int) {
		an, err := ReadFileWith(path, opt, func(p *analysis.Packet) error {
			crcs = append(crcs, p.ICRC)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := writeRPCTable(&b, an.RPCs()); err != nil {
			t.Fatal(err)
		}
		for _, n := range an.Notes() {
			if n.Kind == analysis.NoteBadICRC {
				bad++
			}
		}
		return crcs, b.String(), bad
	}
	checked, want, wantBad := decode(analysis.Options{})
	skipped, got, gotBad := decode(analysis.Options{SkipCRCs: true})
	if checked[7].State != frame.CRCBad || wantBad != 1 || gotBad != 0 {
		t.Fatalf("frame 8: ICRC %v checked; bad-ICRC notes %d checked, %d skipped", checked[7].State, wantBad, gotBad)
	}
	for i, c := range skipped {
		if c.State != frame.CRCUnknown || c.Wire != checked[i].Wire {
			t.Fatalf("frame %d skipped: %+v, checked %+v", i+1, c, checked[i])
		}
	}
	if got != want {
		t.Errorf("RPC table with CRCs skipped:\n%s\nchecked:\n%s", got, want)
	}
}
