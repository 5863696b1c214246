package rpcrdma

import (
	"encoding/binary"
	"errors"
	"testing"
)

// words builds a test input from 32-bit words.
func words(w ...uint32) []byte {
	b := make([]byte, 0, 4*len(w))
	for _, x := range w {
		b = binary.BigEndian.AppendUint32(b, x)
	}
	return b
}

const xid = 0x0badcafe

func TestDecodeErrors(t *testing.T) {
	all := DecodeOptions{MaxSegCount: 4, RejectZeroSegCount: true, MaxReadLength: 8192,
		CheckPositions: true, RejectMSGP: true}
	tests := []struct {
		name string
		in   []byte
		opt  DecodeOptions
		kind ErrKind
		off  int
		msg  string
	}{
		{"empty", nil, DecodeOptions{}, ErrTruncated, 0,
			"rpcrdma: offset 0: need 16 bytes for transport header, have 0"},
		{"fixed header short", words(xid, 1)[:7], DecodeOptions{}, ErrTruncated, 0,
			"rpcrdma: offset 0: need 16 bytes for transport header, have 7"},
		{"version 2", words(xid, 2, 64, 0, 0, 0, 0), DecodeOptions{}, ErrVersion, 4,
			"rpcrdma: offset 4: rdma_vers is 2, not 1"},
		{"version 0 before proc", words(xid, 0, 64, 9), DecodeOptions{}, ErrVersion, 4,
			"rpcrdma: offset 4: rdma_vers is 0, not 1"},
		{"proc 5", words(xid, 1, 64, 5), DecodeOptions{}, ErrProc, 12,
			"rpcrdma: offset 12: rdma_proc 5 is not a known message type"},
		{"proc huge", words(xid, 1, 64, 0xffffffff), DecodeOptions{}, ErrProc, 12,
			"rpcrdma: offset 12: rdma_proc 4294967295 is not a known message type"},
		{"MSGP rejected", words(xid, 1, 64, 2, 0, 0, 0, 0, 0), all, ErrProc, 12,
			"rpcrdma: offset 12: rdma_proc is RDMA_MSGP, which is not supported"},
		{"MSGP short", words(xid, 1, 64, 2, 1024), DecodeOptions{}, ErrTruncated, 16,
			"rpcrdma: offset 16: need 8 bytes for RDMA_MSGP align and threshold, have 4"},
		{"no read list", words(xid, 1, 64, 0), DecodeOptions{}, ErrTruncated, 16,
			"rpcrdma: offset 16: need 4 bytes for read list discriminator, have 0"},
		{"read segment short", words(xid, 1, 64, 0, 1, 8, 1), DecodeOptions{}, ErrTruncated, 20,
			"rpcrdma: offset 20: need 20 bytes for read segment, have 8"},
		{"read list end missing", words(xid, 1, 64, 0, 1, 8, 1, 2, 0, 3), DecodeOptions{}, ErrTruncated, 40,
			"rpcrdma: offset 40: need 4 bytes for read list discriminator, have 0"},
		{"position 6", words(xid, 1, 64, 0, 1, 6, 1, 2, 0, 3, 0, 0, 0), all, ErrChunk, 20,
			"rpcrdma: offset 20: read segment position 6 is not a multiple of 4"},
		{"second position 6", words(xid, 1, 64, 0, 1, 8, 1, 2, 0, 3, 1, 6, 1, 2, 0, 3, 0, 0, 0), all, ErrChunk, 44,
			"rpcrdma: offset 44: read segment position 6 is not a multiple of 4"},
		{"read length", words(xid, 1, 64, 0, 1, 8, 1, 8193, 0, 3, 0, 0, 0), all, ErrChunk, 28,
			"rpcrdma: offset 28: read segment length 8193 exceeds maximum 8192"},
		{"no write list", words(xid, 1, 64, 0, 0), DecodeOptions{}, ErrTruncated, 20,
			"rpcrdma: offset 20: need 4 bytes for write list discriminator, have 0"},
		{"write segcount missing", words(xid, 1, 64, 0, 0, 1), DecodeOptions{}, ErrTruncated, 24,
			"rpcrdma: offset 24: need 4 bytes for write chunk segment count, have 0"},
		{"write segcount over max", words(xid, 1, 64, 0, 0, 1, 5), all, ErrChunk, 24,
			"rpcrdma: offset 24: write chunk segment count 5 exceeds maximum 4"},
		{"write segcount 0", words(xid, 1, 64, 0, 0, 1, 0, 0, 0), all, ErrChunk, 24,
			"rpcrdma: offset 24: write chunk segment count is 0"},
		{"write segments short", words(xid, 1, 64, 0, 0, 1, 2, 1, 2, 3, 4), DecodeOptions{}, ErrTruncated, 28,
			"rpcrdma: offset 28: need 32 bytes for 2 write chunk segments, have 16"},
		{"write segcount huge", words(xid, 1, 64, 0, 0, 1, 0xffffffff), DecodeOptions{}, ErrTruncated, 28,
			"rpcrdma: offset 28: need 68719476720 bytes for 4294967295 write chunk segments, have 0"},
		{"write list end missing", words(xid, 1, 64, 0, 0, 1, 1, 1, 2, 3, 4), DecodeOptions{}, ErrTruncated, 44,
			"rpcrdma: offset 44: need 4 bytes for write list discriminator, have 0"},
		{"no reply chunk", words(xid, 1, 64, 1, 0, 0), DecodeOptions{}, ErrTruncated, 24,
			"rpcrdma: offset 24: need 4 bytes for reply chunk discriminator, have 0"},
		{"reply segcount over max", words(xid, 1, 64, 1, 0, 0, 1, 9), all, ErrChunk, 28,
			"rpcrdma: offset 28: reply chunk segment count 9 exceeds maximum 4"},
		{"reply segcount 0", words(xid, 1, 64, 1, 0, 0, 1, 0), all, ErrChunk, 28,
			"rpcrdma: offset 28: reply chunk segment count is 0"},
		{"reply segments short", words(xid, 1, 64, 1, 0, 0, 1, 1, 1, 2), DecodeOptions{}, ErrTruncated, 32,
			"rpcrdma: offset 32: need 16 bytes for 1 reply chunk segments, have 8"},
		{"error body missing", words(xid, 1, 64, 4), DecodeOptions{}, ErrTruncated, 16,
			"rpcrdma: offset 16: need 4 bytes for rdma_err, have 0"},
		{"error code 7", words(xid, 1, 64, 4, 7), DecodeOptions{}, ErrErrorBody, 16,
			"rpcrdma: offset 16: rdma_err 7 is neither ERR_VERS (1) nor ERR_CHUNK (2)"},
		{"ERR_VERS range short", words(xid, 1, 64, 4, 1, 1), DecodeOptions{}, ErrTruncated, 20,
			"rpcrdma: offset 20: need 8 bytes for ERR_VERS version range, have 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Header
			n, err := h.Decode(tt.in, tt.opt)
			if err == nil {
				t.Fatalf("decoded %d bytes without error: %+v", n, h)
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v is not a *DecodeError", err, err)
			}
			if err.Error() != tt.msg {
				t.Errorf("error %q\n  want %q", err, tt.msg)
			}
			if de.Kind != tt.kind || de.Offset != tt.off {
				t.Errorf("kind %v offset %d, want %v offset %d", de.Kind, de.Offset, tt.kind, tt.off)
			}
			if de.Offset < 0 || de.Offset > len(tt.in) {
				t.Errorf("offset %d outside the %d-byte input", de.Offset, len(tt.in))
			}
			if de.Field == "" {
				t.Error("no field named")
			}
			if n != 0 {
				t.Errorf("n = %d on error", n)
			}
			if len(tt.in) >= FixedHdrLen && (h.XID != xid || h.Vers != binary.BigEndian.Uint32(tt.in[4:])) {
				t.Errorf("fixed words not kept on error: %+v", h)
			}
		})
	}
}

func TestReplyCode(t *testing.T) {
	var h Header
	_, err := h.Decode(words(xid, 2, 64, 0), DecodeOptions{})
	if c := err.(*DecodeError).ReplyCode(); c != ErrCodeVers {
		t.Errorf("bad version answers %v", c)
	}
	_, err = h.Decode(words(xid, 1, 64, 5), DecodeOptions{})
	if c := err.(*DecodeError).ReplyCode(); c != ErrCodeChunk {
		t.Errorf("bad proc answers %v", c)
	}
}

func TestLenientDecode(t *testing.T) {
	// Without options, what the kernel rejects still decodes, for the
	// capture decoder to show.
	in := words(xid, 1, 64, 0,
		1, 6, 1, 1<<30, 0, 3, // position 6, 1 GiB
		0,
		1, 0, 0, // Write chunk with no segments, end of the Write list
		1, 0, // Reply chunk with no segments
	)
	var h Header
	if n, err := h.Decode(in, DecodeOptions{}); err != nil || n != len(in) {
		t.Fatalf("n %d, %v", n, err)
	}
	if h.ReadList[0].Position != 6 || len(h.WriteList) != 1 || h.ReplyChunk == nil {
		t.Fatalf("decoded %+v", h)
	}
	in = words(xid, 1, 64, 3, 0xdead) // RDMA_DONE: nothing after the fixed words
	if n, err := h.Decode(in, DecodeOptions{}); err != nil || n != 16 || h.Proc != ProcDone {
		t.Fatalf("RDMA_DONE: n %d, %v, %+v", n, err, h)
	}
}

// TestKernelOptionsGC21 replays golden case GC-21 (header decode errors)
// under the 2025 (SEED, FIX2025) and 2026 kernel checks.
func TestKernelOptionsGC21(t *testing.T) {
	const maxPages = 4
	seed := KernelOptions(maxPages, 4096, false)
	new2026 := KernelOptions(maxPages, 4096, true)
	for _, c := range []struct {
		name        string
		in          []byte
		seedKind    ErrKind // 0: accepted
		new2026Kind ErrKind
		proc        Proc // for accepted ones
	}{
		{"(a) version 2", words(xid, 2, 64, 0, 0, 0, 0), ErrVersion, ErrVersion, 0},
		{"(b) RDMA_DONE dropped", words(xid, 1, 64, 3), 0, 0, ProcDone},
		{"(b) RDMA_ERROR dropped", words(xid, 1, 64, 4, 2), 0, 0, ProcError},
		{"(c) RDMA_MSGP", words(xid, 1, 64, 2, 0, 0, 0, 0, 0), ErrProc, ErrProc, 0},
		{"(c) proc 5", words(xid, 1, 64, 5), ErrProc, ErrProc, 0},
		{"(d) position 6", words(xid, 1, 64, 0, 1, 6, 1, 4, 0, 0, 0, 0, 0), ErrChunk, ErrChunk, 0},
		{"(e) segcount over rc_maxpages", words(xid, 1, 64, 0, 0, 1, 5), ErrChunk, ErrChunk, 0},
		{"(e) segcount 0", words(xid, 1, 64, 0, 0, 1, 0, 0, 0), 0, ErrChunk, ProcMsg},
		{"read segment of 5 pages", words(xid, 1, 64, 0, 1, 4, 1, 5*4096, 0, 0, 0, 0, 0,
			0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
			0, ErrChunk, ProcMsg},
	} {
		for _, p := range []struct {
			name string
			opt  DecodeOptions
			want ErrKind
		}{{"seed", seed, c.seedKind}, {"new2026", new2026, c.new2026Kind}} {
			var h Header
			_, err := h.Decode(c.in, p.opt)
			switch {
			case p.want == 0 && err != nil:
				t.Errorf("%s %s: %v, want accepted", c.name, p.name, err)
			case p.want == 0 && h.Proc != c.proc:
				t.Errorf("%s %s: proc %v, want %v", c.name, p.name, h.Proc, c.proc)
			case p.want != 0 && (err == nil || err.(*DecodeError).Kind != p.want):
				t.Errorf("%s %s: %v, want a %v error", c.name, p.name, err, p.want)
			}
		}
	}
}

// TestCheckChunkPositions covers the 2026 pcl_check_read_chunk_positions
// (bug B5's fix) with an inline body of 100 bytes.
func TestCheckChunkPositions(t *testing.T) {
	opt := DecodeOptions{CheckPositions: true, CheckChunkPositions: true, MaxReadLength: 4 * 4096}
	inline := make([]byte, 100)
	hdr := func(entries ...uint32) []byte { // entries: position, length pairs
		var w []uint32
		w = append(w, xid, 1, 64, 0)
		for i := 0; i < len(entries); i += 2 {
			w = append(w, 1, entries[i], 0x77, entries[i+1], 0, 0)
		}
		w = append(w, 0, 0, 0)
		return append(words(w...), inline...)
	}
	for _, c := range []struct {
		name string
		in   []byte
		off  int
		msg  string
	}{
		{"one chunk inside", hdr(40, 4096), 0, ""},
		{"chunk at the end of the body", hdr(100, 4096), 0, ""},
		{"(a) position past the body", hdr(200, 8), 20,
			"rpcrdma: offset 20: read chunk at position 200 starts past the end of the 100-byte inline body (0 bytes read before it)"},
		{"two chunks in order", hdr(40, 16, 80, 8), 0, ""},
		{"(b) overlapping chunks", hdr(40, 64, 80, 8), 20,
			"rpcrdma: offset 20: read chunk at position 40 (64 bytes) overlaps the read chunk at position 80"},
		{"second chunk past the body", hdr(40, 16, 124, 8), 44,
			"rpcrdma: offset 44: read chunk at position 124 starts past the end of the 100-byte inline body (16 bytes read before it)"},
		{"chunk too long", hdr(40, 4096, 40, 4096, 40, 4096, 40, 4096, 40, 4), 20,
			"rpcrdma: offset 20: read chunk at position 40 is 16388 bytes long, more than 16384"},
		{"inside the position-zero chunk", hdr(0, 64, 0, 64, 120, 8), 0, ""},
		{"past the position-zero chunk", hdr(0, 64, 0, 64, 132, 8), 68,
			"rpcrdma: offset 68: read chunk at position 132 starts past the end of the 128-byte position-zero read chunk (0 bytes read before it)"},
		{"position-zero chunk too long", hdr(0, 16384, 0, 4), 20,
			"rpcrdma: offset 20: position-zero read chunk length 16388 exceeds maximum 16384"},
	} {
		var h Header
		_, err := h.Decode(c.in, opt)
		if c.msg == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil || err.Error() != c.msg || err.(*DecodeError).Offset != c.off || err.(*DecodeError).Kind != ErrChunk {
			t.Errorf("%s: error %v\n want %q", c.name, err, c.msg)
		}
		// Without the option the same header decodes (SEED's behaviour, B5).
		if _, err := h.Decode(c.in, DecodeOptions{CheckPositions: true}); err != nil {
			t.Errorf("%s without CheckChunkPositions: %v", c.name, err)
		}
	}
}
