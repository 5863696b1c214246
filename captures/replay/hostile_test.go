package replay

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
	"github.com/rdmalab/rdmalab/proto/safe"
	"github.com/rdmalab/rdmalab/proto/xdr"
)

// simNFS3 is the simulator's own NFSv3 traffic, in captures/testdata.
const simNFS3 = "sim-nfs3.pcap"

// patched is the capture name of captures/testdata with b written at byte
// off.
func patched(t testing.TB, name string, off int, b []byte) []byte {
	t.Helper()
	data := testutil.ReadCapture(t, name)
	copy(data[off:], b)
	return data
}

// In sim-nfs3.pcap the WRITE call of frame 4 advertises its Read chunk
// segment at offset 0x11ed76e83000; frame 6 READs there and frames 7-16
// bring the data. Moving the segment's offset puts the READ and its
// responses outside the segment.
var (
	// The segment's offset becomes 0x11ed7fffffff: the READ is below it.
	readBelow = func(t testing.TB) []byte { return patched(t, simNFS3, 1144, []byte{0xff, 0xff, 0xff, 0x7f}) }
	// The segment's offset becomes 0: the READ is 19 TB above it.
	readAbove = func(t testing.TB) []byte { return patched(t, simNFS3, 1140, make([]byte, 8)) }
)

// walk plays tl forward and back, checking every picture with check.
func walk(t *testing.T, tl *Timeline, check func(*Player)) {
	t.Helper()
	p := tl.Player()
	for p.Forward() {
		check(p)
	}
	for p.Back() {
		check(p)
	}
}

// pagesListed is how many rc_pages and how many SGEs (of the chains'
// WRs; the R/W contexts list the same ones) a picture lists.
func pagesListed(p *Player) (pages, sges int) {
	snap := p.Snapshot()
	for _, r := range snap.Reads {
		pages += len(r.Pages)
	}
	for _, c := range snap.Chains {
		for _, w := range c.WRs {
			sges += len(w.SGEs)
		}
	}
	return pages, sges
}

// Data a READ places outside the segment the call advertised is an
// anomaly the step names with its frame: never an index into rc_pages
// (it panicked, below the segment) nor a page count (12 GB, above it).
func TestReadOutsideSegment(t *testing.T) {
	for name, data := range map[string][]byte{"below": readBelow(t), "above": readAbove(t)} {
		t.Run(name, func(t *testing.T) {
			var tl *Timeline
			n := testutil.Allocated(func() {
				var err error
				if tl, err = Read(bytes.NewReader(data), "sim-nfs3.pcap"); err != nil {
					t.Fatal(err)
				}
				walk(t, tl, func(p *Player) {
					// The 10000-byte layout's 3 pages, empty.
					if pages, sges := pagesListed(p); pages > 3 || sges > 0 {
						t.Fatalf("step %d: %d pages and %d SGEs listed for a Read list whose data all fell outside it", p.At(), pages, sges)
					}
					for _, r := range p.Snapshot().Reads {
						for _, pg := range r.Pages {
							if len(pg.Extents) > 0 {
								t.Fatalf("step %d: %s holds %+v", p.At(), pg.Name, pg.Extents)
							}
						}
					}
				})
			})
			if n > 64<<20 {
				t.Errorf("%d MB allocated to replay a 30 KB capture", n>>20)
			}
			req := tl.Text(stepAtFrame(t, tl, 6))
			if !strings.Contains(req, "; frame 6: outside the 10000-byte segment the call advertised, not placed in rc_pages") {
				t.Errorf("the READ request's step does not say it is outside its segment: %q", req)
			}
			for frame := 7; frame <= 16; frame++ {
				i := stepAtFrame(t, tl, frame)
				if text := tl.Text(i); !strings.Contains(text, fmt.Sprintf("frame %d", frame)) || !strings.Contains(text, "not placed in rc_pages") {
					t.Errorf("frame %d: %q", frame, text)
				}
				found := false
				for _, e := range tl.StepEvents(i) {
					found = found || e.Func == "outside_segment"
				}
				if !found {
					t.Errorf("frame %d: no outside_segment event", frame)
				}
			}
			p := tl.Player()
			p.SeekFrame(16)
			if k := p.Step().Kind; k != KindReadDone {
				t.Errorf("frame 16 is a %v step: the chain still completes", k)
			}
			if rs := p.st.readOf(p.Step().RPC); rs == nil || rs.landed != 0 || len(rs.runs) != 0 {
				t.Errorf("bytes outside the segment landed: %+v", rs)
			}
		})
	}
}

// A WRITE past the end of its Write chunk segment is said, with its frame.
func TestWriteOutsideSegment(t *testing.T) {
	c := newConv(t)
	const xid = 0x0bad0004
	wc := rpcrdma.WriteChunk{Segments: []rpcrdma.Segment{{Handle: 0x300, Length: 4096, Offset: 1 << 40}}}
	read := xdrOf(func(w *xdr.Writer) {
		w.OpaqueVar([]byte{1, 2, 3, 4})
		w.Uint64(0)
		w.Uint32(4096)
	})
	c.clientSend(rdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg, WriteList: []rpcrdma.WriteChunk{wc}}, nfsCall(xid, 3, 6, "client", read)))
	c.serverWrite(0x300, 1<<40+4090, []byte("0123456789abcdef")) // 10 bytes past the end
	c.serverSend(rdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg, WriteList: []rpcrdma.WriteChunk{wc}}, nfsReply(xid, nil)))
	tl, err := Read(bytes.NewReader(c.pcap()), "write.pcap")
	if err != nil {
		t.Fatal(err)
	}
	text := tl.Text(stepAtFrame(t, tl, 3))
	if want := "frame 3: 16 B at +4090 of write chunk 0 segment 0: outside the 4096-byte segment the call advertised"; !strings.Contains(text, want) {
		t.Errorf("the WRITE's step %q does not say %q", text, want)
	}
}

// A call whose chunks claim 2 GiB a segment, with 16 bytes moved into
// each, costs what its 16 bytes do: its picture lists the pages bytes
// landed in (or were to), never the pages the claim would take.
func TestHugeChunks(t *testing.T) {
	for _, tc := range []struct {
		name string
		conv func(testing.TB, int) *conv
	}{{"read-zero", hostileReadZero}, {"reply-chunk", hostileReplyChunk}} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.conv(t, 16).pcap()
			var tl *Timeline
			n := testutil.Allocated(func() {
				var err error
				if tl, err = Read(bytes.NewReader(data), tc.name+".pcap"); err != nil {
					t.Fatal(err)
				}
				walk(t, tl, func(p *Player) {
					// 16 bytes may straddle two pages.
					if pages, sges := pagesListed(p); pages > 2*16 || sges > 2*16 {
						t.Fatalf("step %d: %d pages and %d SGEs listed for 16 × 16 bytes", p.At(), pages, sges)
					}
				})
			})
			if n > 32<<20 {
				t.Errorf("%d MB allocated to replay a %d-byte capture", n>>20, len(data))
			}
			if tc.name != "read-zero" {
				return
			}
			// The bytes land where the layout puts them, far into rc_pages.
			p := tl.Player()
			p.SeekFrame(len(tc.conv(t, 16).frames) - 2) // the last READ response
			snap := p.Snapshot()
			if len(snap.Reads) != 1 {
				t.Fatalf("%d Read lists in the picture", len(snap.Reads))
			}
			rd := snap.Reads[0]
			if want := (16*hugeSegment + 4095) / 4096; rd.PageCount != want || rd.ReadBytes != 16*hugeSegment {
				t.Errorf("rc_page_count %d, rc_readbytes %d: the numbers are the call's claim (%d pages)", rd.PageCount, rd.ReadBytes, want)
			}
			landed := 0
			for _, pg := range rd.Pages {
				for _, e := range pg.Extents {
					landed += e.Len
				}
			}
			if landed != 16*16 || rd.Pages[0].Index != farOffset/4096 {
				t.Errorf("%d bytes drawn landed in %d pages from %s; want 256 from pg%d", landed, len(rd.Pages), rd.Pages[0].Name, farOffset/4096)
			}
		})
	}
}

// A capture that never acknowledges a reply nor completes a Read list
// does not grow the picture (each checkpoint copies it): the newest
// chains and Read lists are kept.
func TestPictureBounded(t *testing.T) {
	c := newConv(t)
	for i := range maxChains + 40 {
		xid := uint32(0x1000 + i)
		c.clientSend(rdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}, nfsCall(xid, 3, 0, "client", nil)))
		c.serverSendUnacked(rdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}, nfsReply(xid, nil)))
	}
	tl, err := Read(bytes.NewReader(c.pcap()), "unacked.pcap")
	if err != nil {
		t.Fatal(err)
	}
	for _, ck := range tl.checkpoints {
		for _, st := range ck.world {
			if len(st.chains) > maxChains || len(st.reads) > maxReads {
				t.Fatalf("a checkpoint holds %d chains, %d reads", len(st.chains), len(st.reads))
			}
		}
	}
	p := tl.Player()
	p.End()
	snap := p.Snapshot()
	if len(snap.Chains) != maxChains || snap.Chains[maxChains-1].Owner != fmt.Sprintf("reply xid 0x%08x", 0x1000+maxChains+39) {
		t.Errorf("%d chains at the end, the newest %q", len(snap.Chains), snap.Chains[len(snap.Chains)-1].Owner)
	}
}

// Names off the wire reach a terminal escaped, in every text the replay
// prints or hands a view; the JSON transcript keeps them exact.
func TestEscapedNames(t *testing.T) {
	tl, err := Read(bytes.NewReader(hostileNames(t).pcap()), "names\x1b[2J.pcap")
	if err != nil {
		t.Fatal(err)
	}
	const escaped = `a\x1b[2J\x1b[6n\r\nfake line\a\u202ez`
	for _, o := range []Options{{}, {ByRPC: true}, {Events: true}} {
		var b bytes.Buffer
		if err := tl.WriteTranscript(&b, o); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, "DH: 0xb63cfbcd/"+escaped) || !strings.Contains(out, `replay of names\x1b[2J.pcap`) {
			t.Errorf("%+v: the name is not escaped as %s:\n%s", o, escaped, out)
		}
		checkTerminalSafe(t, fmt.Sprintf("%+v", o), out)
	}
	p := tl.Player()
	for p.Forward() {
		var texts []string
		snap := p.Snapshot()
		texts = append(texts, p.Narration(), p.Describe(), snap.Behaviour, snap.LastEvent.String())
		for _, c := range snap.Calls {
			texts = append(texts, c.Label, c.Proc)
		}
		for _, r := range snap.Positions.Replies {
			texts = append(texts, r.Proc)
		}
		for _, e := range p.Events(100) {
			texts = append(texts, e.String())
		}
		checkTerminalSafe(t, fmt.Sprintf("step %d", p.At()), strings.Join(texts, "\n"))
	}
	p.Seek(0)
	if n := p.Narration(); !strings.Contains(n, escaped) {
		t.Errorf("the view's narration: %q", n)
	}
	// The JSON transcript's texts are the timeline's, with the summary as
	// the decoder made it, and the call's step carries the names exactly
	// as sent once decoded; in the text itself they are \u escapes, as in
	// every JSON rdmalab writes (the U+202E went out raw).
	var b bytes.Buffer
	if err := tl.WriteTranscript(&b, Options{JSON: true}); err != nil {
		t.Fatal(err)
	}
	checkTerminalSafe(t, "--json", b.String())
	sc := bufio.NewScanner(&b)
	for i := 0; sc.Scan(); i++ {
		var js struct {
			Text   string `json:"text"`
			Events []struct {
				Text string `json:"text"`
			} `json:"events"`
			Strings []jsonString `json:"strings"`
		}
		if err := json.Unmarshal(sc.Bytes(), &js); err != nil {
			t.Fatal(err)
		}
		evs := tl.StepEvents(i)
		if js.Text != tl.Text(i) || len(js.Events) != len(evs) {
			t.Fatalf("step %d: JSON text %q, want %q", i, js.Text, tl.Text(i))
		}
		for k, e := range js.Events {
			if e.Text != evs[k].Text {
				t.Fatalf("step %d event %d: JSON text %q, want %q", i, k, e.Text, evs[k].Text)
			}
		}
		if i == 0 && !strings.Contains(js.Text, tl.RPCs[0].Label) {
			t.Errorf("the JSON text %q does not quote the call's summary %q", js.Text, tl.RPCs[0].Label)
		}
		want := []jsonString(nil)
		if i == 0 {
			want = []jsonString{{"rpc.auth.machinename", escMachine}, {"nfs.name", escName}}
		}
		if !slices.Equal(js.Strings, want) {
			t.Errorf("step %d: JSON strings %q, want %q", i, js.Strings, want)
		}
	}
}

// termText escapes what a terminal acts on as safe.Text does, keeps
// backslashes (what it quotes is mostly escaped already) and is
// idempotent.
func TestTermText(t *testing.T) {
	for _, s := range []string{"", "plain · text", escName, escMachine, `bad \xff byte` + "\xff", "\u009b2J C1", "\u2067isolate\u2069"} {
		got := safe.Display(s)
		if !strings.Contains(s, `\`) && got != safe.Text(s) {
			t.Errorf("safe.Display(%q) = %q, safe.Text gives %q", s, got, safe.Text(s))
		}
		if again := safe.Display(got); again != got {
			t.Errorf("safe.Display(%q) = %q, then %q", s, got, again)
		}
		checkTerminalSafe(t, fmt.Sprintf("safe.Display(%q)", s), got)
	}
	if s := `V3 LOOKUP Call, DH: 0x1/a\x1b[2J`; safe.Display(s) != s {
		t.Errorf("safe.Display(%q) = %q: an escaped summary is escaped again", s, safe.Display(s))
	}
}

// checkTerminalSafe fails when out holds what a terminal acts on: a
// control character but the newline, DEL, a C1 control, a bidi override,
// or bytes that are not UTF-8.
func checkTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s: the output is not UTF-8", what)
	}
	for i, r := range out {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			t.Fatalf("%s: %U at byte %d reaches the terminal: %q", what, r, i, out[max(0, i-40):min(len(out), i+40)])
		}
	}
}

// A gzip capture cut short replays up to the break, which names the frame
// and the uncompressed offset, as a plain one does.
func TestTruncatedGzip(t *testing.T) {
	data := testutil.ReadCapture(t, simNFS3)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(data)
	w.Close()
	cut := gz.Bytes()[:gz.Len()*2/3]
	tl, err := Read(bytes.NewReader(cut), "cut.pcap.gz")
	if err != nil {
		t.Fatal(err)
	}
	var pe *pcapfile.Error
	if !errors.As(tl.Err, &pe) || pe.Frame == 0 || !pe.Gzip {
		t.Fatalf("the timeline's error %v does not say where the file broke", tl.Err)
	}
	last := tl.Step(tl.NumSteps() - 1)
	if last.Kind != KindBreak || last.Frame != pe.Frame {
		t.Fatalf("last step %+v, want the break at frame %d", last, pe.Frame)
	}
	for _, want := range []string{fmt.Sprintf("breaks at frame %d, uncompressed byte offset %d", pe.Frame, pe.Offset), "cut.pcap.gz"} {
		if text := tl.Text(last.Index); !strings.Contains(text, want) {
			t.Errorf("the break step %q does not say %q", text, want)
		}
	}
	if tl.NumSteps() < 10 {
		t.Errorf("only %d steps before the break", tl.NumSteps())
	}
	checkProperties(t, tl, cut, false)
}

// framesOf is a new capture of the given frames of data (1-based).
func framesOf(t testing.TB, data []byte, frames ...int) []byte {
	t.Helper()
	r, err := pcapfile.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	keep := map[int]bool{}
	for _, f := range frames {
		keep[f] = true
	}
	var b bytes.Buffer
	bw := bufio.NewWriter(&b)
	var w *pcapfile.Writer
	var rec pcapfile.Record
	for r.Next(&rec) == nil {
		if w == nil {
			if w, err = pcapfile.NewWriter(bw, rec.LinkType, 65535); err != nil {
				t.Fatal(err)
			}
		}
		if keep[rec.Frame] {
			if err := w.WritePacket(rec.Info, rec.Data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// FuzzReplay: any capture replays as far as it goes, forward and back,
// without a panic; its pictures cost what its bytes do, and its text
// transcript is safe for a terminal. The seeds are a few frames each.
func FuzzReplay(f *testing.F) {
	sim := testutil.ReadCapture(f, simNFS3)
	f.Add(framesOf(f, sim, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18)) // CM, a WRITE's Read chunk, reply, ACK
	f.Add(framesOf(f, sim, 19, 20, 21, 25, 26, 33, 34))      // a READ's Write chunk
	f.Add(framesOf(f, sim, 35, 36, 37, 38))                  // a READDIR's Reply chunk
	f.Add(framesOf(f, readBelow(f), 4, 6, 7, 16))            // data below its segment
	f.Add(framesOf(f, readAbove(f), 4, 6, 7))                // data far above it
	f.Add(hostileReadZero(f, 2).pcap())
	f.Add(hostileReplyChunk(f, 2).pcap())
	f.Add(hostileNames(f).pcap())
	f.Fuzz(func(t *testing.T, b []byte) {
		tl, err := Read(bytes.NewReader(b), "fuzz.pcap")
		if err != nil {
			return
		}
		p := tl.Player()
		for p.Forward() {
			if pages, sges := pagesListed(p); pages+sges > 64+len(b) {
				t.Fatalf("step %d: %d pages and %d SGEs for %d bytes of capture", p.At(), pages, sges, len(b))
			}
			_ = p.Narration()
		}
		for i := 0; i < 3 && p.Back(); i++ {
			_ = p.Snapshot()
		}
		var out bytes.Buffer
		if err := tl.WriteTranscript(&out, Options{Events: true}); err != nil {
			t.Fatal(err)
		}
		checkTerminalSafe(t, "transcript", out.String())
	})
}
