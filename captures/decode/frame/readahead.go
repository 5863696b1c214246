package frame

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// Read-ahead: a second goroutine reads the records, copies them into
// batches and computes the ICRC of each RoCEv2 packet (a sixth of a
// decode's time, and the only step that reads every payload byte), while
// the first decodes, analyses and writes. The decoding goroutine then
// touches little more than each packet's headers, which it reads from
// the other core's cache. Everything else stays on one goroutine: the
// analysis is one sequence of states.

const (
	AheadMin     = 4 << 20   // smaller files are read on one goroutine: the second costs more than it saves
	batchBytes   = 256 << 10 // a batch's packet bytes: it stays in a core's cache
	batchRecords = 1024
	batches      = 4 // in flight: one being read, one decoded, two waiting
)

// batch is records read ahead, their bytes in one arena, and the ICRC the
// reader computed for each.
type batch struct {
	recs  []pcapfile.Record
	hints []icrcHint
	arena []byte
	err   error // what ended the reading after recs: io.EOF at the end
}

// icrcHint is the ICRC of frame[start:end] when ok: checkCRCs takes it
// when the decoder finds the same span, and computes the ICRC itself
// otherwise.
type icrcHint struct {
	start, end int32
	crc        uint32
	ok         bool
}

// readAhead is the reading goroutine and its batches.
type readAhead struct {
	full chan *batch
	free chan *batch
	done chan struct{}
}

// ReadAhead calls fn with each record of r, in order, as it decodes them
// with d: the records are read, and their ICRCs computed, on a second
// goroutine. It stops at the end of r or at fn's first error, which it
// returns; a reading error other than io.EOF it returns through readErr.
func (d *Decoder) ReadAhead(r *pcapfile.Reader, fn func(*pcapfile.Record) error, readErr func(error) error) error {
	ra := startReadAhead(r, d.skipCRCs)
	defer ra.stop()
	for b := range ra.full {
		d.warm += warmHeaders(b.recs)
		for i := range b.recs {
			d.hint = b.hints[i]
			if err := fn(&b.recs[i]); err != nil {
				return err
			}
		}
		if errors.Is(b.err, io.EOF) {
			return nil
		}
		if b.err != nil {
			return readErr(b.err)
		}
		ra.free <- b
	}
	return nil
}

// startReadAhead starts reading r ahead.
func startReadAhead(r *pcapfile.Reader, skipCRCs bool) *readAhead {
	ra := &readAhead{full: make(chan *batch, batches), free: make(chan *batch, batches), done: make(chan struct{})}
	for range batches {
		ra.free <- &batch{}
	}
	go ra.run(r, skipCRCs)
	return ra
}

// stop ends the reading goroutine: the decoder is done with the batches.
func (ra *readAhead) stop() {
	close(ra.done)
	for range ra.full {
	}
}

func (ra *readAhead) run(r *pcapfile.Reader, skipCRCs bool) {
	defer close(ra.full)
	var ck ib.Checker
	ether := r.LinkType() == pcapfile.LinkTypeEthernet && !skipCRCs
	for {
		var b *batch
		select {
		case b = <-ra.free:
		case <-ra.done:
			return
		}
		b.recs, b.hints, b.arena, b.err = b.recs[:0], b.hints[:0], b.arena[:0], nil
		for len(b.arena) < batchBytes && len(b.recs) < batchRecords {
			var rec pcapfile.Record
			if err := r.Next(&rec); err != nil {
				b.err = err
				break
			}
			var h icrcHint
			if ether {
				h = roceV2Hint(&ck, rec.Data)
			}
			b.hints = append(b.hints, h)
			b.arena = append(b.arena, rec.Data...)
			b.recs = append(b.recs, rec)
		}
		// The arena has stopped moving: point each record, of the length
		// it was read with, into it.
		off := 0
		for i := range b.recs {
			n := len(b.recs[i].Data)
			b.recs[i].Data = b.arena[off : off+n : off+n]
			off += n
		}
		select {
		case ra.full <- b:
		case <-ra.done:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// roceV2Hint computes the ICRC of an Ethernet frame carrying RoCEv2 over
// IPv4 without options tags or fragments, over the span the decoder
// will find: from the IP header to the end of the UDP payload, as the
// IP total length and UDP length bound it.
func roceV2Hint(ck *ib.Checker, f []byte) icrcHint {
	const eth = 14
	if len(f) < eth+20+8 || binary.BigEndian.Uint16(f[12:]) != 0x0800 {
		return icrcHint{}
	}
	ip := f[eth:]
	ihl := int(ip[0]&0xf) * 4
	total := int(binary.BigEndian.Uint16(ip[2:]))
	if ip[0]>>4 != 4 || ip[9] != 17 || ihl < 20 || total < ihl+8 || total > len(ip) ||
		binary.BigEndian.Uint16(ip[6:])&0x3fff != 0 { // more fragments, or an offset
		return icrcHint{}
	}
	udp := ip[ihl:total]
	ulen := int(binary.BigEndian.Uint16(udp[4:]))
	if binary.BigEndian.Uint16(udp[2:]) != ib.UDPPortRoCEv2 || ulen < 8 || ulen > len(udp) {
		return icrcHint{}
	}
	end := eth + ihl + ulen
	c, err := ck.RoCEv2ICRC(f[eth:end])
	if err != nil {
		return icrcHint{}
	}
	return icrcHint{start: eth, end: int32(end), crc: c, ok: true}
}

// warmHeaders reads the first three cache lines of every record of a
// batch, where the headers are. The reading goroutine's core wrote them:
// read one packet at a time, each line is a miss the decoder waits for;
// read all at once, the misses overlap (the decoding goroutine's CPU
// time 5% less on the 1M-packet capture).
func warmHeaders(recs []pcapfile.Record) (sum byte) {
	for i := range recs {
		data := recs[i].Data
		for off := 0; off < len(data) && off < 192; off += 64 {
			sum += data[off]
		}
	}
	return sum
}
