package columnar

import (
	"fmt"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/internal/atomicfile"
)

// RowGroupRows is how many rows a row group holds: what the Writer keeps
// in memory before it writes them (a few MB of packet rows).
const RowGroupRows = 64 << 10

// batch is how many rows go to the Parquet writer at a time.
const batch = 1024

// Writer writes rows of one kind (packets or RPCs) to a Parquet file.
// Each capture's rows go through Capture; Close completes the file.
type Writer struct {
	path    string
	f       *atomicfile.File
	packets *parquet.GenericWriter[PacketRow]
	rpcs    *parquet.GenericWriter[RPCRow]
	pbuf    []PacketRow
	rbuf    []RPCRow
	rows    int64
	err     error
}

// Create starts the Parquet file at path, of RPC rows when rpcs is set,
// of packet rows otherwise. Nothing is at path until Close succeeds.
func Create(path string, rpcs bool) (*Writer, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	w := &Writer{path: path, f: f}
	opts := []parquet.WriterOption{parquet.MaxRowsPerRowGroup(RowGroupRows), parquet.Compression(&zstd.Codec{Level: zstd.SpeedFastest, Concurrency: 1}),
		parquet.CreatedBy("rdmalab", "", "")}
	if rpcs {
		w.rpcs = parquet.NewGenericWriter[RPCRow](f, opts...)
		w.rbuf = make([]RPCRow, 0, batch)
	} else {
		w.packets = parquet.NewGenericWriter[PacketRow](f, opts...)
		w.pbuf = make([]PacketRow, 0, batch)
	}
	return w, nil
}

// Rows is how many rows the Writer has taken.
func (w *Writer) Rows() int64 { return w.rows }

// Capture is the decode.Rows that adds the rows of one capture, under
// the name given.
func (w *Writer) Capture(name string) decode.Rows { return &captureRows{w: w, name: name} }

type captureRows struct {
	w    *Writer
	name string
}

func (c *captureRows) Packet(p *analysis.Packet) error {
	w := c.w
	if w.packets == nil {
		return fmt.Errorf("%s: a file of RPC rows takes no packets", w.path)
	}
	n := len(w.pbuf)
	w.pbuf = w.pbuf[:n+1]
	packetRow(&w.pbuf[n], c.name, p)
	w.rows++
	if len(w.pbuf) == cap(w.pbuf) {
		return w.flush()
	}
	return nil
}

func (c *captureRows) RPC(r *analysis.RPC, anomalies []analysis.Note) error {
	w := c.w
	if w.rpcs == nil {
		return fmt.Errorf("%s: a file of packet rows takes no RPCs", w.path)
	}
	w.rbuf = append(w.rbuf, rpcRow(c.name, r, anomalies))
	w.rows++
	if len(w.rbuf) == cap(w.rbuf) {
		return w.flush()
	}
	return nil
}

// flush hands the rows gathered to the Parquet writer.
func (w *Writer) flush() error {
	if w.err != nil {
		return w.err
	}
	if w.packets != nil {
		_, w.err = w.packets.Write(w.pbuf)
		w.pbuf = w.pbuf[:0] // each row's Notes is reused by the next
	} else {
		_, w.err = w.rpcs.Write(w.rbuf)
		clear(w.rbuf)
		w.rbuf = w.rbuf[:0]
	}
	if w.err != nil {
		w.err = fmt.Errorf("write %s: %w", w.path, w.err)
	}
	return w.err
}

// Close writes the rows still held and the file's footer and puts the
// file in place.
func (w *Writer) Close() error {
	err := w.flush()
	if err == nil {
		if w.packets != nil {
			err = w.packets.Close()
		} else {
			err = w.rpcs.Close()
		}
		if err != nil {
			err = fmt.Errorf("write %s: %w", w.path, err)
		}
	}
	if err != nil {
		w.f.Abort()
		return err
	}
	return w.f.Commit()
}

// Abort leaves no file behind: for a run that failed.
func (w *Writer) Abort() { w.f.Abort() }
