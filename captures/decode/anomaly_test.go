package decode

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/captures/decode/internal/craft"
)

// TestRDMAError turns the reply of frame 6 into an RDMA_ERROR (ERR_VERS):
// it answers the call of frame 4 and is reported.
func TestRDMAError(t *testing.T) {
	d := decodeFile(t, craft.Mutate(t, func(fs []craft.Frame) []craft.Frame {
		f := fs[5].Data
		body := f[craft.OffExt : craft.OffExt+28]
		binary.BigEndian.PutUint32(body[12:], 4) // RDMA_ERROR
		binary.BigEndian.PutUint32(body[16:], 1) // ERR_VERS
		binary.BigEndian.PutUint32(body[20:], 1)
		binary.BigEndian.PutUint32(body[24:], 1)
		f = f[:craft.OffExt+28+4]
		binary.BigEndian.PutUint16(f[16:], uint16(len(f)-14))
		binary.BigEndian.PutUint16(f[38:], uint16(len(f)-34))
		fs[5].Data = f
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
	path := craft.Mutate(t, func(fs []craft.Frame) []craft.Frame { fs[7].Data[70] ^= 1; return fs }, 8)
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
