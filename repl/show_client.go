package repl

import (
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/snap"
)

// segJSON is one segment a client call advertised (RFC 8166 names).
type segJSON struct {
	ID       string  `json:"id"`   // "0x5eed0010/0": xid and index, for show segment
	Kind     string  `json:"kind"` // "read chunk 0", "call chunk", "write chunk 0", "reply chunk"
	Position *uint32 `json:"position,omitempty"`
	Handle   string  `json:"handle"`
	Length   uint32  `json:"length"`
	Offset   string  `json:"offset"`
	PageOff  int     `json:"page_off"`
}

// callChunks is one call and the chunk lists it advertised.
type callChunks struct {
	XID      string    `json:"xid"`
	Label    string    `json:"label"`
	Proc     string    `json:"proc"`
	State    string    `json:"state"`
	Inline   int       `json:"inline_bytes"`
	Segments []segJSON `json:"segments"`
}

type chunksReport struct {
	Calls []callChunks `json:"calls"`
}

func xidString(x uint32) string { return fmt.Sprintf("0x%x", x) }

func chunksOf(k engine.ClientCall) callChunks {
	cc := callChunks{XID: xidString(k.XID), Label: k.Label, Proc: k.Proc.String(), State: k.State, Inline: k.Inline}
	for i, s := range k.Segs {
		sj := segJSON{ID: fmt.Sprintf("%s/%d", cc.XID, i), Kind: s.Kind, Handle: fmt.Sprintf("0x%x", s.Handle),
			Length: s.Length, Offset: fmt.Sprintf("0x%x", s.Offset), PageOff: s.PageOff}
		if strings.HasPrefix(s.Kind, "read") || s.Kind == "call chunk" {
			p := s.Position
			sj.Position = &p
		}
		cc.Segments = append(cc.Segments, sj)
	}
	return cc
}

// findCall finds a client call by XID ("0x5eed0010" or decimal).
func findCall(s *Session, x string) (engine.ClientCall, error) {
	v, err := strconv.ParseUint(x, 0, 32)
	if err != nil {
		return engine.ClientCall{}, fmt.Errorf("%q is not an XID (try 0x5eed0010)", x)
	}
	if k, ok := s.lab.CallByXID(uint32(v)); ok {
		return k, nil
	}
	return engine.ClientCall{}, fmt.Errorf("no call has xid %s (show calls lists them)", x)
}

func chunksReportOf(s *Session, _ snap.Snapshot, arg string) (report, error) {
	var v chunksReport
	if arg != "" {
		k, err := findCall(s, arg)
		if err != nil {
			return nil, err
		}
		v.Calls = append(v.Calls, chunksOf(k))
		return v, nil
	}
	for _, k := range s.lab.Calls(-1) {
		v.Calls = append(v.Calls, chunksOf(k))
	}
	return v, nil
}

func (v chunksReport) writeText(w io.Writer) {
	if len(v.Calls) == 0 {
		fmt.Fprintln(w, "no calls yet")
	}
	for _, k := range v.Calls {
		writeCallChunks(w, k)
	}
}

func writeCallChunks(w io.Writer, k callChunks) {
	fmt.Fprintf(w, "xid %s %s: %s, %d inline bytes, %s\n", k.XID, k.Label, k.Proc, k.Inline, k.State)
	writeSegments(w, k)
}

// writeSegments lists a call's chunk segments as a table.
func writeSegments(w io.Writer, k callChunks) {
	if len(k.Segments) == 0 {
		fmt.Fprintln(w, "  no chunks: everything travels inline in the Send")
		return
	}
	fmt.Fprintf(w, "  %-2s %-13s %-8s %-8s %-11s %-15s %s\n", "#", "chunk", "position", "length", "handle", "offset", "page off")
	for i, sg := range k.Segments {
		pos := "-"
		if sg.Position != nil {
			pos = fmt.Sprint(*sg.Position)
		}
		fmt.Fprintf(w, "  %-2d %-13s %-8s %-8d %-11s %-15s %d\n", i, sg.Kind, pos, sg.Length, sg.Handle, sg.Offset, sg.PageOff)
	}
}

// segmentReport is one client segment and the first bytes of its buffer.
type segmentReport struct {
	Segment segJSON `json:"segment"`
	Head    string  `json:"head_hex"` // up to 64 bytes, hex
	call    string
}

func segmentReportOf(s *Session, _ snap.Snapshot, arg string) (report, error) {
	if arg == "" {
		return nil, fmt.Errorf("which segment? give XID/N (show chunks lists them)")
	}
	x, n, ok := strings.Cut(arg, "/")
	if !ok {
		return nil, fmt.Errorf("%q is not XID/N (try %s/0)", arg, x)
	}
	k, err := findCall(s, x)
	if err != nil {
		return nil, err
	}
	i, err := engine.ParseInt("segment index", n, 0, int64(max(len(k.Segs)-1, 0)))
	if err != nil || len(k.Segs) == 0 {
		if len(k.Segs) == 0 {
			return nil, fmt.Errorf("xid %s advertised no segments", x)
		}
		return nil, err
	}
	data := k.SegData(int(i))
	return segmentReport{Segment: chunksOf(k).Segments[i], Head: hex.EncodeToString(data[:min(64, len(data))]), call: k.Label}, nil
}

func (v segmentReport) writeText(w io.Writer) {
	sg := v.Segment
	fmt.Fprintf(w, "segment %s: %s of %s\n  handle %s, %d bytes at %s, page offset %d\n",
		sg.ID, sg.Kind, v.call, sg.Handle, sg.Length, sg.Offset, sg.PageOff)
	b, _ := hex.DecodeString(v.Head)
	for off := 0; off < len(b); off += 16 {
		end := min(off+16, len(b))
		fmt.Fprintf(w, "  %04x  % x\n", off, b[off:end])
	}
	if len(b) == 0 {
		fmt.Fprintln(w, "  (empty)")
	}
}
