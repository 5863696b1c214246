package wire

import (
	"bufio"
	"fmt"
	"io"

	"github.com/google/gopacket"

	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// snapLen is the pcap snap length: more than the largest RoCEv2 frame
// (a 4096-byte path MTU plus headers).
const snapLen = 65535

// PcapWriter streams the frames of Transfers into a classic pcap file
// (link type Ethernet, nanosecond timestamps) as they come: it holds one
// frame at a time, whatever the length of the capture.
type PcapWriter struct {
	e   *Emitter
	bw  *bufio.Writer
	pw  *pcapfile.Writer
	n   int
	err error // the first write error: every later call returns it
}

// NewPcapWriter writes the pcap file header and the CM exchange of
// opts.Conns to w.
func NewPcapWriter(w io.Writer, opts Options) (*PcapWriter, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	pw, err := pcapfile.NewWriter(bw, pcapfile.LinkTypeEthernet, snapLen)
	if err != nil {
		return nil, fmt.Errorf("wire: pcap header: %w", err)
	}
	p := &PcapWriter{e: NewEmitter(opts), bw: bw, pw: pw}
	if err := p.e.EmitPrelude(p.write); err != nil {
		return nil, fmt.Errorf("wire: CM prelude: %w", err)
	}
	return p, nil
}

// Write appends the frames of t.
func (p *PcapWriter) Write(t sim.Transfer) error {
	if p.err != nil {
		return p.err
	}
	if err := p.e.Emit(t, p.write); err != nil {
		p.err = err
	}
	return p.err
}

func (p *PcapWriter) write(f Frame) error {
	ci := gopacket.CaptureInfo{Timestamp: f.Time, CaptureLength: len(f.Data), Length: len(f.Data)}
	if err := p.pw.WritePacket(ci, f.Data); err != nil {
		return fmt.Errorf("pcap record %d: %w", p.n+1, err)
	}
	p.n++
	return nil
}

// Packets is how many frames were written so far, the CM exchange
// included.
func (p *PcapWriter) Packets() int { return p.n }

// Flush writes out what is buffered.
func (p *PcapWriter) Flush() error {
	if p.err != nil {
		return p.err
	}
	if err := p.bw.Flush(); err != nil {
		p.err = fmt.Errorf("wire: pcap flush: %w", err)
	}
	return p.err
}
