// Package live captures frames from a network interface on Linux, as
// tcpdump does but without libpcap or cgo: a packet socket (AF_PACKET)
// with a classic BPF program attached in the kernel (SO_ATTACH_FILTER),
// so that only the frames kept cross into rdmalab. The program is
// compiled here from tcpdump's filter language (CompileFilter: its common
// part). What is captured is written as a pcapng stream, which the
// decoder reads as it reads a pipe.
//
// It is a capture source: a floor below the decoder, importing of
// rdmalab only the wire formats (proto/pcapfile's writer).
package live

import (
	"bufio"
	"context"
	"errors"
	"io"

	"github.com/google/gopacket"
	"golang.org/x/net/bpf"

	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// Snaplen is what a capture keeps of a frame: all of it (tcpdump's
// default, 262144 bytes, past any MTU and GRO's 64 KiB).
const Snaplen = 262144

// Program is the filter a capture attaches: filter (tcpdump's syntax)
// and RoCEFilter, or filter alone when all is set. An empty filter with
// all keeps every frame.
func Program(filter string, all bool) ([]bpf.Instruction, error) {
	user, err := parseFilter(filter)
	if err != nil {
		return nil, err
	}
	n := user
	if !all {
		roce, err := parseFilter(RoCEFilter)
		if err != nil {
			return nil, err
		}
		if n == nil {
			n = roce
		} else {
			n = and(user, roce)
		}
	}
	return generate(n, Snaplen)
}

// Run writes what h captures to w as pcapng (one Ethernet interface)
// until ctx ends, count frames are captured (0: no limit) or a write
// fails. An ended ctx is no error: it is how a capture is stopped.
func Run(ctx context.Context, h *Handle, w io.Writer, count int) error {
	// Frames gather in bw while more are queued, and go out whenever the
	// socket would wait: a frame is never held back while none follow.
	bw := bufio.NewWriterSize(w, 64<<10)
	ng, err := pcapfile.NewNgWriter(bw, pcapfile.LinkTypeEthernet)
	if err != nil {
		return err
	}
	defer bw.Flush()
	for n := 0; count == 0 || n < count; n++ {
		data, length, ts, err := h.Next(ctx, bw.Flush)
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return nil
			}
			return err
		}
		ci := gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(data), Length: length}
		if err := ng.WritePacket(0, ci, data); err != nil {
			return err
		}
	}
	return bw.Flush()
}
