package main

import (
	"encoding/binary"
	"io"
	"time"
)

// Sizes of the classic pcap headers pcapfile.Writer writes.
const (
	fileHeaderLen   = 24
	recordHeaderLen = 16
)

// gap separates the last frame of one connection from the first of the
// next.
const gap = time.Millisecond

// splice joins the pcap streams of successive Labs into one file. Each is
// a classic pcap as pcapfile.Writer writes it (little-endian, nanosecond
// times), and each Lab's times start at the same epoch, so splice keeps
// the first file header, drops the others, and moves every later stream's
// record times to start gap after the last time written. Writes may cut
// headers anywhere.
type splice struct {
	w         io.Writer
	streams   int // streams begun before the current one
	hdrLeft   int // bytes of the current stream's file header still to come
	rec       [recordHeaderLen]byte
	recHave   int
	dataLeft  int   // bytes of the current record's data still to come
	shift     int64 // nanoseconds added to the current stream's times
	last      int64 // the latest time written, in nanoseconds since 1970
	firstRec  bool  // the next record is the current stream's first
	headerOut bool  // the file header went out
}

func newSplice(w io.Writer) *splice {
	return &splice{w: w, hdrLeft: fileHeaderLen, firstRec: true}
}

// next begins the next stream.
func (s *splice) next() {
	s.streams++
	s.hdrLeft, s.recHave, s.dataLeft, s.firstRec = fileHeaderLen, 0, 0, true
}

func (s *splice) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		switch {
		case s.hdrLeft > 0:
			n := min(s.hdrLeft, len(p))
			if !s.headerOut {
				if _, err := s.w.Write(p[:n]); err != nil {
					return total - len(p), err
				}
			}
			s.hdrLeft -= n
			p = p[n:]
			if s.hdrLeft == 0 {
				s.headerOut = true
			}
		case s.dataLeft > 0:
			n := min(s.dataLeft, len(p))
			if _, err := s.w.Write(p[:n]); err != nil {
				return total - len(p), err
			}
			s.dataLeft -= n
			p = p[n:]
		default:
			n := copy(s.rec[s.recHave:], p)
			s.recHave += n
			p = p[n:]
			if s.recHave < recordHeaderLen {
				continue
			}
			if err := s.record(); err != nil {
				return total - len(p), err
			}
		}
	}
	return total, nil
}

// record moves the time of the complete record header in s.rec and
// writes it.
func (s *splice) record() error {
	le := binary.LittleEndian
	t := int64(le.Uint32(s.rec[0:]))*int64(time.Second) + int64(le.Uint32(s.rec[4:]))
	if s.firstRec {
		s.firstRec = false
		if s.streams > 0 {
			s.shift = s.last + int64(gap) - t
		}
	}
	t += s.shift
	s.last = max(s.last, t)
	le.PutUint32(s.rec[0:], uint32(t/int64(time.Second)))
	le.PutUint32(s.rec[4:], uint32(t%int64(time.Second)))
	s.recHave, s.dataLeft = 0, int(le.Uint32(s.rec[8:]))
	_, err := s.w.Write(s.rec[:])
	return err
}
