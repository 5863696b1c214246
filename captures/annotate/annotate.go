// Package annotate writes a capture back out as pcapng with what rdmalab's
// analysis noted on each packet as that packet's comment (opt_comment), so
// that a colleague who opens it in Wireshark sees the anomalies in the
// packet list and finds them with frame.comment:
//
//	rdmalab decode --check -w OUT.pcapng FILE
//	tshark -r OUT.pcapng -Y 'frame.comment contains "past segment"'
//
// It reads the capture twice: once to analyse it, since some anomalies
// are known only at its end (a call never answered belongs on the call's
// frame), then to copy every record with its comments, the comments it
// already had first. Only the notes are held between the passes.
package annotate

import (
	"fmt"
	"io"
	"os"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/fields"
	"github.com/rdmalab/rdmalab/internal/atomicfile"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// Prefix starts every comment rdmalab writes, so that its notes are told
// from a capture's own comments.
const Prefix = "rdmalab: "

// Options say which packets go out and what is noted on them.
type Options struct {
	Display   *fields.DisplayFilter // the packets written (-Y); nil writes all
	Filter    *fields.Selection     // the packets written (--filter); nil writes all
	Notes     bool                  // each note as a comment (else the frames alone, with their own comments)
	MaxExpand int64                 // how far a gzip capture may decompress (0: the default)
}

// Stats is what a run wrote.
type Stats struct {
	Packets  int // records written
	Comments int // notes written as comments
}

// Source opens the capture, once a pass.
type Source func() (io.ReadCloser, error)

// File is the Source of the capture file at path.
func File(path string) Source {
	return func() (io.ReadCloser, error) { return os.Open(path) }
}

// WriteFile writes the capture at in to out (pcapng, atomically: nothing
// is at out unless the whole capture was written).
func WriteFile(out, in string, o Options) (Stats, error) {
	f, err := atomicfile.Create(out)
	if err != nil {
		return Stats{}, err
	}
	st, err := Write(f, File(in), in, o)
	if err != nil {
		f.Abort()
		return st, err
	}
	return st, f.Commit()
}

// Write writes the capture src opens to w as pcapng; name is what its
// errors call it.
func Write(w io.Writer, src Source, name string, o Options) (Stats, error) {
	sel, notes, err := analyse(src, name, o)
	if err != nil {
		return Stats{}, err
	}
	f, err := src()
	if err != nil {
		return Stats{}, err
	}
	defer f.Close()
	r, err := pcapfile.NewReaderWith(f, pcapfile.Options{MaxExpand: o.MaxExpand})
	if err != nil {
		return Stats{}, fmt.Errorf("%s: %w", name, err)
	}
	defer r.Close()
	nw, err := pcapfile.NewNgWriter(w)
	if err != nil {
		return Stats{}, err
	}
	ifaces := map[pcapfile.LinkType]int{}
	var st Stats
	var rec pcapfile.Record
	var comments []string
	for {
		if err := r.Next(&rec); err == io.EOF {
			return st, nil
		} else if err != nil {
			return st, fmt.Errorf("%s: %w", name, err)
		}
		if sel != nil && !sel.has(rec.Frame) {
			continue
		}
		iface, ok := ifaces[rec.LinkType]
		if !ok {
			if iface, err = nw.AddInterface(rec.LinkType); err != nil {
				return st, err
			}
			ifaces[rec.LinkType] = iface
		}
		comments = append(comments[:0], rec.Comments...)
		for len(notes) > 0 && notes[0].Frame <= rec.Frame {
			if notes[0].Frame == rec.Frame {
				comments = append(comments, Prefix+notes[0].Kind.String()+": "+notes[0].Text)
				st.Comments++
			}
			notes = notes[1:]
		}
		if err := nw.WritePacketComments(iface, rec.Info, rec.Data, comments); err != nil {
			return st, err
		}
		st.Packets++
	}
}

// frames is a set of frame numbers.
type frames []uint64

func (s *frames) add(f int) {
	for len(*s) <= f/64 {
		*s = append(*s, 0)
	}
	(*s)[f/64] |= 1 << (f % 64)
}

func (s frames) has(f int) bool { return f/64 < len(s) && s[f/64]&(1<<(f%64)) != 0 }

// analyse reads the capture once: the frames the filters select (nil when
// there are none) and its notes, in frame order.
func analyse(src Source, name string, o Options) (*frames, []analysis.Note, error) {
	f, err := src()
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var sel *frames
	if o.Display != nil || o.Filter != nil {
		sel = &frames{}
	}
	opt := analysis.Options{DropRPCs: true, DropNotes: !o.Notes, DropChunkData: true, ForgetIdle: true,
		MaxExpand: o.MaxExpand, SkipNFSFields: o.Display == nil}
	an, err := decode.ReadWith(f, name, opt, func(p *analysis.Packet) error {
		if sel != nil && o.Filter.Match(p) && o.Display.Match(p) {
			sel.add(p.Frame)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if !o.Notes {
		return sel, nil, nil
	}
	return sel, an.Notes(), nil
}
