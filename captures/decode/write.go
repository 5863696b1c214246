package decode

import (
	"bufio"
	"io"
)

// Output is what Write prints of a capture: the forms of `rdmalab decode`.
type Output struct {
	Tree      bool    // a detail tree per packet (-V)
	JSON      bool    // one JSON object per packet, or per RPC with RPCs (--json); over Tree
	RPCs      bool    // a table per RPC instead of the packets (--rpc)
	Check     bool    // the anomalies, after the rest; alone, instead of the packets (--check)
	Filter    *Filter // the packets and RPCs printed; nil prints all
	MaxExpand int64   // how far a gzip capture may decompress (0: pcapfile's default)
}

// Write decodes the capture at path and writes to w what o asks for. It
// returns the number of anomalies (counted with o.Check only) and the
// first error: a damaged or unreadable file, after what it could decode
// was written, or a failed write.
func Write(w io.Writer, path string, o Output) (anomalies int, err error) {
	out := bufio.NewWriterSize(w, 1<<16)
	anomalies, err = write(out, path, o)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return anomalies, err
}

// write is Write on a buffered writer.
func write(out *bufio.Writer, path string, o Output) (int, error) {
	packets := !o.RPCs && !(o.Check && !o.Tree && !o.JSON)
	var buf []byte
	var jw jsonw
	var tw treeWriter
	// Keep only what this run prints: --json alone streams in bounded
	// memory whatever the size of the capture.
	keep := Options{DropRPCs: !o.RPCs, DropNotes: !o.Check, DropChunkData: true, MaxExpand: o.MaxExpand}
	an, ferr := ReadFileWith(path, keep, func(p *Packet) error {
		if !packets || !o.Filter.Match(p) {
			return nil
		}
		var err error
		switch {
		case o.JSON:
			jw.reset()
			appendJSON(&jw, p)
			jw.b = append(jw.b, '\n')
			_, err = out.Write(jw.b)
		case o.Tree:
			buf = tw.appendTree(buf[:0], p)
			_, err = out.Write(buf)
		default:
			buf = appendLine(buf[:0], p)
			_, err = out.Write(buf)
		}
		return err
	})
	if an == nil {
		return 0, ferr
	}
	if o.RPCs {
		var rpcs []*RPC
		for _, r := range an.RPCs() {
			if o.Filter.MatchRPC(r) {
				rpcs = append(rpcs, r)
			}
		}
		if o.JSON {
			for _, r := range rpcs {
				jw.reset()
				appendRPCJSON(&jw, r)
				jw.b = append(jw.b, '\n')
				if _, err := out.Write(jw.b); err != nil {
					return 0, err
				}
			}
		} else if err := writeRPCTable(out, rpcs); err != nil {
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
