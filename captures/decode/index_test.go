package decode

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/captures/decode/internal/craft"

	"github.com/google/gopacket"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// openDone opens path as an Index and waits for the whole file.
func openDone(t testing.TB, path string) *Index {
	t.Helper()
	x, err := OpenIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := x.Wait(ctx, -1); err != nil {
		t.Fatal(err)
	}
	return x
}

// The index gives back, packet by packet, exactly the lines and trees
// `rdmalab decode` and `rdmalab decode -V` print.
func TestIndexMatchesDecode(t *testing.T) {
	for _, path := range testutil.AllCaptures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			x := openDone(t, path)
			pr := x.Progress()
			if !pr.Done || pr.Fraction != 1 || pr.Err != nil || pr.Packets != x.Len() || x.Analyzer() == nil {
				t.Fatalf("progress %+v, len %d", pr, x.Len())
			}
			_, out, err := writeFile(path, Output{})
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != x.Len() {
				t.Fatalf("decode prints %d lines, the index has %d packets", len(lines), x.Len())
			}
			for i, want := range lines {
				if got := x.Summary(i); got != want {
					t.Errorf("packet %d:\n got %q\nwant %q", i, got, want)
				}
			}
			// The tree: the same text as -V, except the analysis, which
			// the index shows as the whole capture told it (a CM
			// connection's QPs once both sides are known, a message's
			// final length, a call rebuilt with its chunks) where -V says
			// what was known at that packet.
			_, out, _ = writeFile(path, Output{Tree: true})
			trees := strings.Split(strings.TrimSuffix(out, "\n\n"), "\n\n")
			for i, want := range trees {
				var got []string
				for _, l := range x.Detail(i) {
					got = append(got, strings.Repeat("    ", l.Depth)+l.Text)
				}
				if g, w := beforeAnalysis(strings.Join(got, "\n")), beforeAnalysis(want); g != w {
					t.Errorf("packet %d tree:\n got %s\nwant %s", i, g, w)
					break
				}
			}
		})
	}
}

func beforeAnalysis(tree string) string {
	tree, _, _ = strings.Cut(tree, "\n[rdmalab analysis]")
	var keep []string
	for _, l := range strings.Split(tree, "\n") {
		// A call is rebuilt once its Read chunk has arrived: after the
		// call's packet, so -V cannot say it there.
		if !strings.Contains(l, "rebuilt with its") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// What the index keeps of a frame gives back the same capture header and
// the same analysis, field for field, compact or not, at once and once the
// whole file is indexed: over every capture, the simulator's, a damaged
// one (notes, bad ICRC, truncation, a WRITE past its segment, a NAK, a
// malformed BTH) and one whose times and sizes do not fit a record.
func TestIndexKeepsAnalysis(t *testing.T) {
	paths := append(testutil.AllCaptures(t), testutil.Capture(t, "sim-nfs3.pcap"), damagedCapture(t), wideCapture(t))
	var flags [16]int
	compact, total := 0, 0
	for _, path := range paths {
		x := &Index{dec: NewDecoderWith(analysis.Options{DropChunkData: true})}
		r, err := pcapfile.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var recs []pcapfile.Record
		var wants []analysis.Analysis
		var bths []*ib.BTH // only PSNs, AETHs and payload lengths are read again
		var rec pcapfile.Record
		for r.Next(&rec) == nil {
			p := x.dec.Decode(&rec)
			i := x.n
			x.add(&rec, p)
			var an analysis.Analysis
			x.analysis(i, factsOf(p.BTH), &an)
			want := p.Analysis
			if len(want.Notes) == 0 {
				want.Notes, an.Notes = nil, nil
			}
			if !reflect.DeepEqual(an, want) {
				t.Fatalf("%s frame %d: kept\n%+v\nwant\n%+v", path, p.Frame, an, want)
			}
			want.Notes = slices.Clone(want.Notes)
			wants = append(wants, want)
			var bth *ib.BTH
			if p.BTH != nil {
				b := *p.BTH
				bth = &b
			}
			bths = append(bths, bth)
			rec.Data = nil
			recs = append(recs, rec)
			fr := x.rec(i)
			for b := range flags {
				if fr.flags&(1<<b) != 0 {
					flags[b]++
				}
			}
			total++
			if fr.flags&recFull == 0 {
				compact++
			}
		}
		r.Close()
		x.dec.Finish()
		for i, want := range wants {
			var an analysis.Analysis
			x.analysis(i, factsOf(bths[i]), &an)
			if len(want.Notes) == 0 {
				an.Notes = nil
			}
			if !reflect.DeepEqual(an, want) {
				t.Fatalf("%s frame %d at the end: kept\n%+v\nwant\n%+v", path, i+1, an, want)
			}
		}
		for i, rec := range recs {
			h := x.head(i)
			got := frameHead{off: rec.DataOff, recOff: rec.Offset, time: rec.Info.Timestamp.UTC(),
				capLen: rec.Info.CaptureLength, wireLen: rec.Info.Length, lt: rec.LinkType}
			if h != got {
				t.Fatalf("%s frame %d: header kept as %+v, want %+v", path, i+1, h, got)
			}
		}
	}
	if compact < total/2 {
		t.Errorf("only %d of %d packets kept compactly", compact, total)
	}
	// Every way of keeping a frame was tried.
	for _, f := range []struct {
		flag uint16
		name string
	}{{recFlowMsg, "flow of Msg"}, {recFlowPeer, "flow of Msg's peer"}, {recFlowSide, "flow beside"},
		{recPSNOK, "PSN ok"}, {recChunk, "chunk"}, {recDelta, "chunk offset beside"}, {recPast, "past"},
		{recLenMsg, "len msg"}, {recNotes, "notes"}, {recAck, "ack"}, {recFull, "full"}, {recRPC, "RPC"},
		{recWire, "wire length beside"}, {recWideHdr, "wide header"}, {recWideIdx, "wide index"}} {
		if flags[bits.TrailingZeros16(f.flag)] == 0 {
			t.Errorf("no frame kept with %s", f.name)
		}
	}
}

// damagedCapture is nfs3-rdma.pcap damaged in several ways at once.
func damagedCapture(t *testing.T) string {
	return craft.Mutate(t, func(fs []craft.Frame) []craft.Frame {
		fs[86].Data[craft.OffExt] = 0x60 // a NAK
		va := binary.BigEndian.Uint64(fs[67].Data[craft.OffExt:])
		binary.BigEndian.PutUint64(fs[67].Data[craft.OffExt:], va+4094) // a WRITE past its segment
		fs[7].Data[70] ^= 1                                             // a bad ICRC (kept below)
		for k := 10; k < len(fs); k++ {
			if len(fs[k].Data) > 200 {
				fs[k].CapLen = 80 // truncated
				break
			}
		}
		f := fs[87].Data // a READ request cut inside its RETH
		binary.BigEndian.PutUint16(f[16:], 20+8+12+8+4)
		binary.BigEndian.PutUint16(f[38:], 8+12+8+4)
		fs[87].Data = f[:14+20+8+12+8+4]
		fs = slices.Insert(fs, 150, craft.Frame{Data: slices.Clone(fs[149].Data)}) // a duplicate
		return craft.Drop(fs, 96)                                                  // a PSN gap
	}, 8)
}

// wideCapture is nfs3-rdma.pcap with times and sizes a frame record
// cannot hold: long pauses, a clock going back, and frames past 64 KiB.
func wideCapture(t *testing.T) string {
	r, err := pcapfile.Open(testutil.Capture(t, "nfs3-rdma.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := filepath.Join(t.TempDir(), "wide.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := pcapfile.NewWriter(f, pcapfile.LinkTypeEthernet, 262144)
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Unix(1700000000, 123000)
	var rec pcapfile.Record
	for k := 0; r.Next(&rec) == nil; k++ {
		switch {
		case k%40 == 39:
			ts = ts.Add(7 * time.Second)
		case k%25 == 24:
			ts = ts.Add(-time.Millisecond)
		default:
			ts = ts.Add(1500 * time.Microsecond)
		}
		data, wire := rec.Data, len(rec.Data)
		if k%30 == 29 {
			data = append(slices.Clone(data), make([]byte, 70000)...) // padding after the IP packet
			wire = len(data) + 100000
		}
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(data), Length: wire}, data); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// Each detail line names the bytes of its field.
func TestTreeByteRanges(t *testing.T) {
	x := openDone(t, testutil.Capture(t, "nfs3-rdma.pcap"))
	find := func(lines []TreeLine, prefix string) TreeLine {
		t.Helper()
		for _, l := range lines {
			if strings.HasPrefix(l.Text, prefix) {
				return l
			}
		}
		t.Fatalf("no line %q", prefix)
		return TreeLine{}
	}
	seen := map[string]bool{}
	for i := 0; i < x.Len(); i++ {
		var kind ib.Kind
		var xid uint32
		var hasRETH, hasAETH, sendOnly bool
		if err := x.Decode(i, func(p *analysis.Packet) {
			if p.BTH == nil {
				return
			}
			kind = p.BTH.Opcode.Kind()
			hasRETH, hasAETH = p.BTH.Headers&ib.HasRETH != 0, p.BTH.Headers&ib.HasAETH != 0
			if r := p.Analysis.RPC; r != nil && r.FirstFrame == r.Frame && r.Header.Proc == rpcrdma.ProcMsg {
				sendOnly, xid = true, r.Header.XID
			}
		}); err != nil {
			t.Fatal(err)
		}
		b := x.Bytes(i)
		lines := x.Detail(i)
		if l := find(lines, "Ethernet II"); l.Start != 0 || l.End != 14 {
			t.Fatalf("packet %d: Ethernet at [%d,%d)", i, l.Start, l.End)
		}
		if l := find(lines, "Frame "); l.Start != 0 || l.End != len(b) {
			t.Fatalf("packet %d: frame at [%d,%d) of %d", i, l.Start, l.End, len(b))
		}
		if l := find(lines, "Arrival Time"); l.Start != l.End {
			t.Fatalf("packet %d: arrival time shows bytes", i)
		}
		if l := find(lines, "Opcode:"); l.Start != 42 || l.End != 43 {
			t.Fatalf("packet %d: opcode at [%d,%d)", i, l.Start, l.End)
		}
		if l := find(lines, "Invariant CRC"); l.End != len(b) || l.Start != len(b)-4 {
			t.Fatalf("packet %d: ICRC at [%d,%d) of %d", i, l.Start, l.End, len(b))
		}
		if hasRETH {
			l := find(lines, "Virtual Address:")
			va := binary.BigEndian.Uint64(b[l.Start:])
			if l.End-l.Start != 16 || !strings.Contains(l.Text, strings.TrimPrefix(hexString(va), "0x")) {
				t.Fatalf("packet %d: RETH at [%d,%d): %x for %q", i, l.Start, l.End, b[l.Start:l.End], l.Text)
			}
			seen["reth"] = true
		}
		if hasAETH {
			if l := find(lines, "Syndrome:"); l.End-l.Start != 4 || l.Start != 54 {
				t.Fatalf("packet %d: AETH at [%d,%d)", i, l.Start, l.End)
			}
			seen["aeth"] = true
		}
		if sendOnly {
			l := find(lines, "XID:")
			if l.End-l.Start != 4 || binary.BigEndian.Uint32(b[l.Start:]) != xid || l.Start != find(lines, "Payload:").Start {
				t.Fatalf("packet %d: XID at [%d,%d)", i, l.Start, l.End)
			}
			rpc := find(lines, "Remote Procedure Call")
			if rpc.End != len(b)-4 || binary.BigEndian.Uint32(b[rpc.Start:]) != xid {
				t.Fatalf("packet %d: RPC at [%d,%d)", i, rpc.Start, rpc.End)
			}
			seen["rpc"] = true
		}
		if kind == ib.KindReadResponse {
			seen["read"] = true
		}
	}
	if len(seen) != 4 {
		t.Errorf("the capture lacks some cases: %v", seen)
	}
}

func hexString(v uint64) string { return fmt.Sprintf("0x%016x", v) }

// A packet links to its RPC, and the RPC to its packets.
func TestIndexPlace(t *testing.T) {
	x := openDone(t, testutil.Capture(t, "nfs3-rdma.pcap"))
	roles := map[Role]int{}
	checked := 0
	for i := 0; i < x.Len(); i++ {
		pl := x.Place(i)
		roles[pl.Role]++
		if pl.Role == RoleNone {
			if x.Related(i, ScopeRPC) != nil {
				t.Fatalf("packet %d belongs to no RPC but has related packets", i)
			}
			continue
		}
		rel := x.Related(i, ScopeRPC)
		if pl.FramesInRPC != len(rel) || rel[pl.IndexInRPC] != i {
			t.Fatalf("packet %d: place %+v, related %v", i, pl, rel)
		}
		if pl.Call < 0 || pl.Reply < 0 {
			continue // the capture has calls without replies
		}
		if c := x.Place(pl.Call); c.Role != RoleCall || c.XID != pl.XID {
			t.Fatalf("packet %d: its call %d is %+v", i, pl.Call, c)
		}
		if r := x.Place(pl.Reply); r.Role != RoleReply || r.XID != pl.XID {
			t.Fatalf("packet %d: its reply %d is %+v", i, pl.Reply, r)
		}
		if indexOf(rel, pl.Call) < 0 || indexOf(rel, pl.Reply) < 0 {
			t.Fatalf("packet %d: call %d or reply %d not among %v", i, pl.Call, pl.Reply, rel)
		}
		if pl.Role == RoleChunk {
			ch := x.Related(i, ScopeChunk)
			for _, j := range ch {
				o := x.Place(j)
				if o.Role != RoleChunk || o.XID != pl.XID || o.Chunk != pl.Chunk || o.ChunkIndex != pl.ChunkIndex {
					t.Fatalf("packet %d: %d in the same chunk is %+v", i, j, o)
				}
			}
			if !strings.Contains(pl.Text, pl.Chunk.String()+" chunk") {
				t.Fatalf("text %q", pl.Text)
			}
			checked++
		}
	}
	if roles[RoleCall] == 0 || roles[RoleReply] == 0 || roles[RoleChunk] == 0 || roles[RoleAck] == 0 || checked == 0 {
		t.Errorf("roles %v, %d chunk packets checked", roles, checked)
	}
}

// A gzip-compressed capture indexes and reads back like the plain one.
func TestIndexGzip(t *testing.T) {
	plain := testutil.Capture(t, "nfs3-rdma.pcap")
	b := testutil.ReadFile(t, plain)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	gzPath := filepath.Join(t.TempDir(), "nfs3-rdma.pcap.gz")
	if err := os.WriteFile(gzPath, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	x, y := openDone(t, plain), openDone(t, gzPath)
	if x.Len() != y.Len() {
		t.Fatalf("%d packets plain, %d gzip", x.Len(), y.Len())
	}
	for _, i := range []int{0, 10, x.Len() / 2, x.Len() - 1} {
		if x.Summary(i) != y.Summary(i) || !bytes.Equal(x.Bytes(i), y.Bytes(i)) {
			t.Errorf("packet %d differs", i)
		}
	}
	// The copy has no name while it is used, so nothing is left behind
	// whatever way the process ends.
	if y.tmp.f == nil || y.tmp.name != "" {
		t.Fatalf("decompressed copy %+v", y.tmp)
	}
	if _, err := os.Stat(y.tmp.f.Name()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the decompressed copy %s has a name while open: %v", y.tmp.f.Name(), err)
	}
	y.Close()
}

// A file cut in the middle of a record is indexed up to there, and the
// error names the file, the frame and the offset.
func TestIndexDamagedFile(t *testing.T) {
	b := testutil.ReadCapture(t, "nfs3-rdma.pcap")
	path := filepath.Join(t.TempDir(), "cut.pcap")
	os.WriteFile(path, b[:5000], 0o644)
	x := openDone(t, path)
	pr := x.Progress()
	if pr.Err == nil || !strings.Contains(pr.Err.Error(), "cut.pcap") || !strings.Contains(pr.Err.Error(), "frame") ||
		!strings.Contains(pr.Err.Error(), "offset") {
		t.Fatalf("error %v", pr.Err)
	}
	if x.Len() == 0 || !strings.Contains(x.Summary(x.Len()-1), "→") {
		t.Fatalf("%d packets, last %q", x.Len(), x.Summary(x.Len()-1))
	}
	if got := x.Summary(x.Len()); !strings.Contains(got, "no packet") {
		t.Errorf("past the end: %q", got)
	}

	os.WriteFile(path, []byte("not a capture at all, not even close"), 0o644)
	if _, err := OpenIndex(path); err == nil || !strings.Contains(err.Error(), "cut.pcap") {
		t.Errorf("not a capture: %v", err)
	}
	if _, err := OpenIndex(filepath.Join(t.TempDir(), "missing.pcap")); err == nil {
		t.Error("a missing file opens")
	}
}

// Close stops indexing at once, whatever is left of the file.
func TestIndexCloseEarly(t *testing.T) {
	x, err := OpenIndex(testutil.Capture(t, "nfs3-rdma.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if n, _ := x.Wait(ctx, 1); n < 1 {
		t.Fatalf("%d packets", n)
	}
	x.Close()
	x.Close()
	if x.Summary(0) == "" {
		t.Error("no summary after Close")
	}
}

// A follower reads every frame as decoding it says: its transport header's
// numbers, its CM message and error, and its analysis (what Detail reads
// back from the file); then the end of the capture.
func TestIndexFollow(t *testing.T) {
	for _, path := range testutil.AllCaptures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			x, err := OpenIndexWith(path, IndexOptions{Follow: true})
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			var got []Brief
			var end error
			x.Hold(func() {
				for i := 0; ; i++ {
					b, err := x.Follow(i)
					if err != nil {
						end = err
						return
					}
					got = append(got, b)
				}
			})
			if !errors.Is(end, io.EOF) {
				t.Fatalf("the follower ended with %v, want io.EOF", end)
			}
			if len(got) != x.Len() {
				t.Fatalf("followed %d frames of %d", len(got), x.Len())
			}
			bth, cm := 0, 0
			for i, b := range got {
				if err := x.Decode(i, func(p *analysis.Packet) {
					want := BriefOf(p)
					want.Analysis.LateAnomaly = false
					if !reflect.DeepEqual(b, want) {
						t.Errorf("frame %d: followed %+v\nwant %+v", i+1, b, want)
					}
				}); err != nil {
					t.Fatal(err)
				}
				if b.BTH {
					bth++
				}
				if b.CM != "" {
					cm++
				}
			}
			t.Logf("%d frames, %d with a BTH, %d CM messages", len(got), bth, cm)
		})
	}
}

// Follow needs the Briefs IndexOptions.Follow keeps, and stops once the
// index is closed.
func TestIndexFollowNeedsOption(t *testing.T) {
	x := openDone(t, testutil.Capture(t, "nfs3-rdma.pcap"))
	x.Hold(func() {
		if _, err := x.Follow(0); err == nil {
			t.Error("an index opened without Follow gave a Brief")
		}
	})
	y, err := OpenIndexWith(testutil.Capture(t, "nfs3-rdma.pcap"), IndexOptions{Follow: true})
	if err != nil {
		t.Fatal(err)
	}
	y.Close()
	y.Hold(func() {
		if _, err := y.Follow(1 << 20); !errors.Is(err, ErrClosed) {
			t.Errorf("following a closed index: %v, want ErrClosed", err)
		}
	})
}

func TestIndexJSON(t *testing.T) {
	x := openDone(t, testutil.Capture(t, "nfs3-rdma.pcap"))
	_, out, _ := writeFile(testutil.Capture(t, "nfs3-rdma.pcap"), Output{JSON: true})
	want := strings.SplitN(out, "\n", 6)[4]
	got, err := x.JSON(4)
	if err != nil || string(got) != want {
		t.Errorf("JSON(4) = %s, %v\nwant %s", got, err, want)
	}
}

// On every capture, every line's bytes lie inside its frame, and the
// headers of fixed size have it.
func TestTreeRangesInBounds(t *testing.T) {
	sizes := map[string]int{"Base Transport Header": 12, "Local Route Header": 8, "Global Route Header": 40,
		"RETH - ": 16, "AETH - ": 4, "DETH - ": 8, "User Datagram Protocol": 8, "Opcode:": 1}
	found := map[string]bool{}
	for _, path := range testutil.AllCaptures(t) {
		x := openDone(t, path)
		for i := 0; i < x.Len(); i++ {
			n := len(x.Bytes(i))
			prev := ""
			for _, l := range x.Detail(i) {
				if l.Start < 0 || l.End < l.Start || l.End > n {
					t.Fatalf("%s packet %d: %q at [%d,%d) of %d bytes", path, i, l.Text, l.Start, l.End, n)
				}
				bthOpcode := prev == "Base Transport Header"
				prev = l.Text
				for prefix, size := range sizes {
					if prefix == "Opcode:" && !bthOpcode {
						continue // NFSv4 operations are opcodes too
					}
					if strings.HasPrefix(l.Text, prefix) {
						found[prefix] = true
						if l.End-l.Start != size {
							t.Fatalf("%s packet %d: %q is %d bytes, want %d", path, i, l.Text, l.End-l.Start, size)
						}
					}
				}
			}
		}
	}
	t.Logf("headers seen: %v", found)
}

// FuzzTree: whatever a frame holds, every tree line's bytes lie inside it.
func FuzzTree(f *testing.F) {
	r, err := pcapfile.Open(testutil.Capture(f, "nfs3-rdma.pcap"))
	if err != nil {
		f.Fatal(err)
	}
	var rec pcapfile.Record
	for r.Next(&rec) == nil {
		if rec.Frame == 1 || rec.Frame == 4 || rec.Frame == 5 || rec.Frame == 43 || rec.Frame == 88 || rec.Frame == 89 {
			f.Add(uint8(0), append([]byte(nil), rec.Data...))
		}
	}
	r.Close()
	f.Fuzz(func(t *testing.T, link uint8, data []byte) {
		d := NewDecoder()
		rec := pcapfile.Record{Frame: 1, LinkType: fuzzLinks[int(link)%len(fuzzLinks)], Data: data,
			Info: gopacket.CaptureInfo{CaptureLength: len(data), Length: len(data)}}
		p := d.Decode(&rec)
		for _, l := range Tree(p) {
			if l.Start < 0 || l.End < l.Start || l.End > len(data) {
				t.Fatalf("%q at [%d,%d) of %d bytes", l.Text, l.Start, l.End, len(data))
			}
		}
	})
}

// FuzzIndexFile: an Index of any file reads back every packet it indexed,
// and its errors name the file. The file is read from memory and its
// seeds are a few frames: each run is a small file's work.
func FuzzIndexFile(f *testing.F) {
	b := testutil.ReadCapture(f, "nfs3-rdma.pcap")
	recs := recordOffsets(b)
	small := append(append([]byte(nil), b[:24]...), b[recs[3]:recs[7]]...) // a call, its ACK, the reply, its ACK
	f.Add(small)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(small[:24+16+126])
	zw.Close()
	f.Add(z.Bytes())
	var ng bytes.Buffer
	w, _ := pcapfile.NewNgWriter(&ng, pcapfile.LinkTypeEthernet)
	for _, off := range recs[3:5] {
		n := int(binary.LittleEndian.Uint32(b[off+8:]))
		w.WritePacket(0, gopacket.CaptureInfo{CaptureLength: n, Length: n}, b[off+16:off+16+n])
	}
	f.Add(ng.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := openIndex("fuzz.pcap", io.NopCloser(bytes.NewReader(data)), bytes.NewReader(data), int64(len(data)),
			IndexOptions{MaxExpand: 1 << 20})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.pcap: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		defer x.Close()
		n, _ := x.Wait(context.Background(), -1)
		if err := x.Progress().Err; err != nil && !strings.HasPrefix(err.Error(), "fuzz.pcap: ") {
			t.Fatalf("error does not name the file: %v", err)
		}
		for i := 0; i < n; i++ {
			x.Summary(i)
			x.Detail(i)
			if x.Bytes(i) == nil {
				t.Fatalf("packet %d of %d has no bytes", i, n)
			}
			x.Place(i)
			x.Related(i, ScopeRPC)
			x.Related(i, ScopeChunk)
		}
	})
}

// An index (DropChunkData) keeps no Reply chunk bytes once the reply is
// summarised, and the reply's tree still says what rebuilding it gave
// (TestIndexMatchesDecode compares the trees line by line).
func TestIndexDropsReplyChunkBytes(t *testing.T) {
	x := openDone(t, testutil.Capture(t, "nfs3-rdma.pcap"))
	replies, rebuilt := 0, 0
	for _, r := range x.Analyzer().RPCs() {
		if r.ReplyChunk == nil || r.Reply == nil {
			continue
		}
		replies++
		for _, sg := range r.ReplyChunk.Segments {
			if n := sg.KeptBytes(); n != 0 {
				t.Fatalf("XID 0x%08x: its Reply chunk keeps %d bytes after the reply", r.XID, n)
			}
		}
		i := r.Reply.Frame - 1
		for _, l := range x.Detail(i) {
			if strings.Contains(l.Text, "[Reply rebuilt with its chunk data") {
				rebuilt++
			}
		}
	}
	if replies == 0 || rebuilt == 0 {
		t.Fatalf("%d replies through a Reply chunk, %d trees saying the reply rebuilt", replies, rebuilt)
	}
}

// A pcapng frame's comments are the index's too: reading the frame back
// gives its bytes, not its comments, so the index keeps them aside.
func TestIndexKeepsComments(t *testing.T) {
	r, err := pcapfile.Open(testutil.Capture(t, "rdmacm-rping.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	w, err := pcapfile.NewNgWriter(&buf, r.LinkType())
	if err != nil {
		t.Fatal(err)
	}
	var rec pcapfile.Record
	for r.Next(&rec) == nil {
		var cs []string
		if rec.Frame == 7 {
			cs = []string{"seen by the trainer", "and again"}
		}
		if err := w.WritePacketComments(0, rec.Info, rec.Data, cs); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "commented.pcapng")
	testutil.WriteFile(t, path, buf.Bytes())
	x := openDone(t, path)
	for i := range x.Len() {
		var got []string
		for _, l := range x.Detail(i) {
			got = append(got, l.Text)
		}
		has := slices.Contains(got, "seen by the trainer") && slices.Contains(got, "and again")
		if has != (i == 6) {
			t.Errorf("packet %d: comments shown %v: %q", i+1, has, got[:min(3, len(got))])
		}
	}
}
