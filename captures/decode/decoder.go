package decode

import (
	"errors"
	"io"
	"os"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// Decoder decodes and analyses the frames of one capture, in order.
type Decoder struct {
	fd  frame.Decoder // by value, as before the split: no allocation of its own
	an  *analysis.Analyzer
	pkt analysis.Packet
}

// NewDecoder returns a decoder for one capture that keeps everything the
// whole-capture views need (Options{}).
func NewDecoder() *Decoder { return NewDecoderWith(analysis.Options{}) }

// NewDecoderWith returns a decoder for one capture that keeps what opt
// says.
func NewDecoderWith(opt analysis.Options) *Decoder {
	return &Decoder{fd: *frame.NewDecoder(opt.SkipCRCs), an: analysis.NewAnalyzerWith(opt)}
}

// Analyzer returns the transport analysis the decoder feeds.
func (d *Decoder) Analyzer() *analysis.Analyzer { return d.an }

// Decode decodes and analyses one record. The Packet it returns, and
// everything it points into, is reused by the next call; what
// Packet.Analysis points to stays.
func (d *Decoder) Decode(rec *pcapfile.Record) *analysis.Packet {
	p := &d.pkt
	d.fd.Decode(rec, &p.Packet)
	d.an.Packet(p)
	return p
}

// Finish runs the end-of-capture checks.
func (d *Decoder) Finish() { d.an.Finish() }

// ReadFile decodes every frame of the capture at path, calling fn for
// each, then finishes the analysis. A damaged file is decoded as far as it
// goes: the error names the file, frame and byte offset.
func ReadFile(path string, fn func(*analysis.Packet) error) (*analysis.Analyzer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, fn)
}

// Read is ReadFile for a capture read from r; name is the file name its
// errors give.
func Read(r io.Reader, name string, fn func(*analysis.Packet) error) (*analysis.Analyzer, error) {
	pr, err := pcapfile.NewReader(r)
	if err != nil {
		return nil, fileError(name, err)
	}
	defer pr.Close()
	return decodeAll(pr, name, analysis.Options{}, fn)
}

// ReadWith is Read with a decoder that keeps what opt says: a stream
// (a pipe) is decoded as it comes, on one goroutine.
func ReadWith(r io.Reader, name string, opt analysis.Options, fn func(*analysis.Packet) error) (*analysis.Analyzer, error) {
	pr, err := pcapfile.NewReaderWith(r, pcapfile.Options{MaxExpand: opt.MaxExpand})
	if err != nil {
		return nil, fileError(name, err)
	}
	defer pr.Close()
	return decodeAll(pr, name, opt, fn)
}

// ReadFileWith is ReadFile with a decoder that keeps what opt says.
func ReadFileWith(path string, opt analysis.Options, fn func(*analysis.Packet) error) (*analysis.Analyzer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pr, err := pcapfile.NewReaderWith(f, pcapfile.Options{MaxExpand: opt.MaxExpand})
	if err != nil {
		return nil, fileError(path, err)
	}
	defer pr.Close()
	// Without the ICRC to compute, the reading goroutine's copy costs
	// more than it takes off the decoding one (--rpc: 1.14x the time).
	if st, err := f.Stat(); err == nil && st.Size() >= frame.AheadMin && !opt.SkipCRCs {
		return decodeAhead(pr, path, opt, fn)
	}
	return decodeAll(pr, path, opt, fn)
}

func decodeAll(r *pcapfile.Reader, path string, opt analysis.Options, fn func(*analysis.Packet) error) (*analysis.Analyzer, error) {
	d := NewDecoderWith(opt)
	var rec pcapfile.Record
	for {
		err := r.Next(&rec)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			d.Finish()
			return d.an, fileError(path, err)
		}
		if err := fn(d.Decode(&rec)); err != nil {
			d.Finish()
			return d.an, err
		}
	}
	d.Finish()
	return d.an, nil
}

// decodeAhead is decodeAll with the records read ahead (frame/readahead.go).
func decodeAhead(r *pcapfile.Reader, path string, opt analysis.Options, fn func(*analysis.Packet) error) (*analysis.Analyzer, error) {
	d := NewDecoderWith(opt)
	err := d.fd.ReadAhead(r, func(rec *pcapfile.Record) error { return fn(d.Decode(rec)) },
		func(err error) error { return fileError(path, err) })
	d.Finish()
	return d.an, err
}

// FileError is a problem with a capture file: its name and, from package
// pcapfile, the frame and byte offset.
type FileError struct {
	Path string
	Err  error
}

// Error names the file escaped: a path may hold anything a terminal acts on.
func (e *FileError) Error() string { return safe.Text(e.Path) + ": " + e.Err.Error() }

func (e *FileError) Unwrap() error { return e.Err }

func fileError(path string, err error) error { return &FileError{Path: path, Err: err} }
