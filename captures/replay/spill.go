package replay

import (
	"fmt"
	"hash/crc32"
	"os"
	"sync"
)

// spillAfter is how many bytes of sealed blocks a timeline keeps in
// memory before it writes the rest to a spill file: a small capture
// never touches the disk, a capture of a million packets (some 60 MB of
// compressed steps and events) keeps a few blocks in memory.
const spillAfter = 1 << 20

// spill keeps the sealed blocks of a timeline's logs: in memory up to
// spillAfter bytes, then in a temporary file removed as soon as it is
// made (it goes with the last descriptor). When no file can be made or
// written, the blocks stay in memory: the replay works as before, with
// the memory it takes.
type spill struct {
	mu     sync.Mutex
	limit  int // bytes kept in memory before the file (0: spillAfter)
	mem    int // bytes of blocks kept in memory
	f      *os.File
	off    int64
	failed bool  // no file, or it stopped taking blocks: memory from then on
	err    error // why, for the user
	closed bool
}

// blockRef is where a sealed block is: in memory, or n bytes at off of
// the spill file, whose CRC-32 is sum (raw DEFLATE has no check of its
// own, and a damaged block must not decode as steps).
type blockRef struct {
	mem []byte
	off int64
	n   int
	sum uint32
}

// put keeps b and returns where it is.
func (s *spill) put(b []byte) blockRef {
	s.mu.Lock()
	defer s.mu.Unlock()
	limit := s.limit
	if limit == 0 {
		limit = spillAfter
	}
	if s.mem+len(b) <= limit || s.failed || s.closed || !s.open() {
		s.mem += len(b)
		return blockRef{mem: b}
	}
	if _, err := s.f.WriteAt(b, s.off); err != nil {
		// A full disk, most likely: the blocks already written still
		// read back, so the file stays open; the rest stay in memory.
		s.failed, s.err = true, fmt.Errorf("the replay's spill file: %w", err)
		s.mem += len(b)
		return blockRef{mem: b}
	}
	r := blockRef{off: s.off, n: len(b), sum: crc32.ChecksumIEEE(b)}
	s.off += int64(len(b))
	return r
}

// open makes the file on the first block past spillAfter.
func (s *spill) open() bool {
	if s.f != nil {
		return true
	}
	f, err := os.CreateTemp("", "rdmalab-replay-*")
	if err != nil {
		s.failed, s.err = true, fmt.Errorf("the replay's spill file: %w", err)
		return false
	}
	// Unlinked at once: nothing is left behind, however the program ends.
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		s.failed, s.err = true, fmt.Errorf("the replay's spill file: %w", err)
		return false
	}
	s.f = f
	return true
}

// get reads back the block at r.
func (s *spill) get(r blockRef) ([]byte, error) {
	if r.mem != nil || r.n == 0 {
		return r.mem, nil
	}
	s.mu.Lock()
	f := s.f
	s.mu.Unlock()
	if f == nil {
		return nil, fmt.Errorf("the replay's spill file is closed")
	}
	b := make([]byte, r.n)
	if _, err := f.ReadAt(b, r.off); err != nil {
		return nil, fmt.Errorf("the replay's spill file: %w", err)
	}
	if crc32.ChecksumIEEE(b) != r.sum {
		return nil, fmt.Errorf("the replay's spill file: the block at byte %d is damaged (its CRC-32 differs)", r.off)
	}
	return b, nil
}

// Err says why the blocks stayed in memory, when a spill file could not
// be made or written; nil otherwise.
func (s *spill) Err() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// close lets go of the file; blocks in it no longer read.
func (s *spill) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}
