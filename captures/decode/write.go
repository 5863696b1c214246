package decode

import (
	"bufio"
	"errors"
	"io"
	"slices"
	"strconv"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/fields"
)

// Output is what Write prints of a capture: the forms of `rdmalab decode`.
type Output struct {
	Tree      bool                  // a detail tree per packet (-V)
	JSON      bool                  // one JSON object per packet, or per RPC with RPCs (--json); over Tree
	RPCs      bool                  // a table per RPC instead of the packets (--rpc)
	Check     bool                  // the anomalies, after the rest; alone, instead of the packets (--check)
	Filter    *fields.Selection     // the packets printed, and the RPCs of its xid= terms (--filter); nil prints all
	Display   *fields.DisplayFilter // the packets printed (-Y); nil prints all
	Fields    *FieldsOutput         // the values of chosen fields instead of the lines (-T fields); over Tree and JSON
	Count     int                   // read only the first Count frames (-c); 0 reads all
	Hex       bool                  // a hex dump of each packet (-x): alone, instead of its line
	Summary   bool                  // with Hex, each packet's line above its dump (-P)
	MaxExpand int64                 // how far a gzip capture may decompress (0: pcapfile's default)
	Flush     bool                  // write each packet's text (and RPC) as it is decoded: a live capture, a followed file
	// Rows, when set, takes the packets selected, or with RPCs each RPC
	// once settled, as rows instead of their text (--parquet).
	Rows Rows
}

// Rows takes what Write selects as rows of a table, not as text.
type Rows interface {
	Packet(p *analysis.Packet) error
	// RPC takes r once nothing later in the capture changes it, with the
	// anomalies noted on the packets that carried it.
	RPC(r *analysis.RPC, anomalies []analysis.Note) error
}

// errCount stops the reading at -c's frame.
var errCount = errors.New("count reached")

// Write decodes the capture at path and writes to w what o asks for. It
// returns the number of anomalies (counted with o.Check only) and the
// first error: a damaged or unreadable file, after what it could decode
// was written, or a failed write.
func Write(w io.Writer, path string, o Output) (anomalies int, err error) {
	return writeFrom(w, o, func(keep analysis.Options, fn func(*analysis.Packet) error) (*analysis.Analyzer, error) {
		return ReadFileWith(path, keep, fn)
	})
}

// WriteStream is Write for a capture read from r as it comes (a pipe:
// `tcpdump -w - | rdmalab decode -`), in the memory Write needs for a
// file; name is what its errors call it.
func WriteStream(w io.Writer, r io.Reader, name string, o Output) (anomalies int, err error) {
	return writeFrom(w, o, func(keep analysis.Options, fn func(*analysis.Packet) error) (*analysis.Analyzer, error) {
		return ReadWith(r, name, keep, fn)
	})
}

// source reads a capture with a decoder that keeps what keep says.
type source func(keep analysis.Options, fn func(*analysis.Packet) error) (*analysis.Analyzer, error)

func writeFrom(w io.Writer, o Output, src source) (anomalies int, err error) {
	out := bufio.NewWriterSize(w, writeChunk)
	anomalies, err = write(out, w, src, o)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return anomalies, err
}

// writeChunk is what the packets' text is written in: what a Linux pipe
// holds, so that a write into an empty pipe never waits for the reader,
// and the decoding with it (--json into a pipe took 1.2-1.3x the time
// with writes a part of a packet over it).
const writeChunk = 64 << 10

// write is Write on out, a buffered w.
func write(out *bufio.Writer, w io.Writer, src source, o Output) (int, error) {
	packets := !o.RPCs && (o.Rows != nil || !(o.Check && !o.Tree && !o.JSON))
	var buf []byte // the packets' text not written yet
	var jw jsonw
	var lc lineCache
	var tw treeWriter
	keep := o.keep()
	rs := rpcStream{o: o, out: out, next: 1, pending: map[int]*analysis.RPC{}, notes: map[int][]analysis.Note{}}
	// The packets' text gathers in buf and goes straight to w in whole
	// chunks, not copied into out's buffer (1.2 GB of it for --json of a
	// 1 GB capture): out holds nothing while the packets are written.
	if o.Fields != nil && o.Fields.Header && packets {
		buf = o.Fields.appendHeader(buf)
	}
	an, ferr := src(keep, func(p *analysis.Packet) error {
		if o.Count > 0 && p.Frame > o.Count {
			return errCount
		}
		if o.RPCs {
			if err := rs.packet(p); err != nil || !o.Flush {
				return err
			}
			return out.Flush()
		}
		if !packets || !o.Filter.Match(p) || !o.Display.Match(p) {
			return nil
		}
		switch {
		case o.Rows != nil:
			return o.Rows.Packet(p)
		case o.Fields != nil:
			buf = o.Fields.appendFields(buf, p)
		case o.JSON:
			jw.b, jw.comma = buf, false
			appendJSON(&jw, p)
			buf = append(jw.b, '\n')
		case o.Tree:
			buf = tw.appendTree(buf, p)
		case !o.Hex || o.Summary:
			buf = lc.appendLine(buf, p)
			if o.Hex {
				buf = append(buf, '\n') // tshark -P -x: a blank line between
			}
		}
		if o.Hex {
			buf = appendHexDump(buf, p.Data[p.Pseudo:])
		}
		if o.Flush && len(buf) > 0 {
			if err := out.Flush(); err != nil {
				return err
			}
			_, err := w.Write(buf)
			buf = buf[:0]
			return err
		}
		if len(buf) < writeChunk {
			return nil
		}
		if err := out.Flush(); err != nil {
			return err
		}
		// Whole chunks go, one a write; the rest waits for the next.
		n := 0
		for ; len(buf)-n >= writeChunk; n += writeChunk {
			if _, err := w.Write(buf[n : n+writeChunk]); err != nil {
				return err
			}
		}
		buf = buf[:copy(buf, buf[n:])]
		return nil
	})
	if ferr == errCount {
		ferr = nil
	}
	if _, err := out.Write(buf); err != nil {
		return 0, err
	}
	if an == nil {
		return 0, ferr
	}
	if o.RPCs {
		if err := rs.finish(an.RPCs()); err != nil {
			return 0, err
		}
	}
	anomalies := 0
	if o.Check {
		n, err := writeCheck(out, an.Notes())
		if err != nil {
			return n, err
		}
		anomalies = n
	}
	return anomalies, ferr
}

// keep is what the analysis of a capture keeps for o: only what it
// prints, so that every output streams in bounded memory whatever the
// size of the capture, --rpc printing each RPC once it is settled.
func (o Output) keep() analysis.Options {
	return analysis.Options{DropRPCs: true, DropNotes: !o.Check, DropChunkData: true, ForgetIdle: true,
		MaxExpand: o.MaxExpand, SkipCRCs: o.RPCs && !o.Check,
		SkipNFSFields: !o.JSON && o.Fields == nil && o.Display == nil && o.Rows == nil,
		SkipText:      !o.Tree && !o.JSON && !o.Check && !o.Display.ReadsText() && o.Rows == nil && !o.Fields.readsText()}
}

// rpcStream prints the RPCs of --rpc in call order (RPC IDs), each as soon
// as it and every RPC before it are settled: answered, and the reply
// acknowledged, after which nothing in the capture changes its block. The
// Analyzer drops answered RPCs (Options.DropRPCs), so only those waiting
// behind an unsettled one are held.
type rpcStream struct {
	o       Output
	out     *bufio.Writer
	pending map[int]*analysis.RPC   // answered, not printed yet, by ID
	notes   map[int][]analysis.Note // with Output.Rows: the anomalies on each RPC's packets so far, by ID
	next    int                     // the ID printed next
	printed int
	buf     []byte
	jw      jsonw
}

// packet takes the RPC p answered, if any, and prints what is settled.
func (s *rpcStream) packet(p *analysis.Packet) error {
	if s.o.Rows != nil {
		s.noteAnomalies(p)
	}
	if m := p.Analysis.RPC; m != nil && !m.Call && m.RPC != nil && m.RPC.ID >= s.next {
		s.pending[m.RPC.ID] = m.RPC
	}
	for {
		r := s.pending[s.next]
		if r == nil || !settled(r) {
			return nil
		}
		delete(s.pending, s.next)
		s.next++
		if err := s.print(r); err != nil {
			return err
		}
	}
}

// settled reports whether r's block is final: its reply seen and
// acknowledged.
func settled(r *analysis.RPC) bool {
	return r.Reply != nil && (r.Reply.Msg == nil || r.Reply.Msg.AckFrame != 0)
}

// finish prints the rest at the end of the capture, with the calls never
// answered, in call order, and the table's count.
func (s *rpcStream) finish(unanswered []*analysis.RPC) error {
	rest := make([]*analysis.RPC, 0, len(s.pending)+len(unanswered))
	for _, r := range s.pending {
		rest = append(rest, r)
	}
	rest = append(rest, unanswered...)
	slices.SortFunc(rest, func(x, y *analysis.RPC) int { return x.ID - y.ID })
	for _, r := range rest {
		if err := s.print(r); err != nil {
			return err
		}
	}
	if s.o.JSON || s.o.Rows != nil {
		return nil
	}
	s.buf = strconv.AppendInt(s.buf[:0], int64(s.printed), 10)
	_, err := s.out.Write(append(s.buf, " RPCs\n"...))
	return err
}

// noteAnomalies keeps the anomalies on p for the row of the RPC p
// carries a part of.
func (s *rpcStream) noteAnomalies(p *analysis.Packet) {
	a := &p.Analysis
	var r *analysis.RPC
	switch {
	case a.RPC != nil && a.RPC.RPC != nil:
		r = a.RPC.RPC
	case a.Chunk.RPC != nil:
		r = a.Chunk.RPC
	default:
		return
	}
	if r.ID < s.next {
		return // printed already
	}
	for _, n := range a.Notes {
		if n.Kind.Anomaly() {
			s.notes[r.ID] = append(s.notes[r.ID], n)
		}
	}
}

func (s *rpcStream) print(r *analysis.RPC) error {
	notes := s.notes[r.ID]
	delete(s.notes, r.ID)
	if !s.o.Filter.MatchRPC(r) {
		return nil
	}
	s.printed++
	if s.o.Rows != nil {
		return s.o.Rows.RPC(r, notes)
	}
	if s.o.JSON {
		s.jw.reset()
		appendRPCJSON(&s.jw, r)
		s.jw.b = append(s.jw.b, '\n')
		_, err := s.out.Write(s.jw.b)
		return err
	}
	s.buf = appendRPCBlock(s.buf[:0], r)
	_, err := s.out.Write(s.buf)
	return err
}
