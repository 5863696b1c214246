package replay

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// spillTo is a spill that writes to a file of the test's (linked, so
// that the test can reopen and damage it) from its first block.
func spillTo(t *testing.T) (*spill, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spill")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	s := &spill{limit: 1, f: f}
	t.Cleanup(s.close)
	return s, path
}

// TestSpillWriteFails: when the file stops taking blocks (a full disk),
// the blocks already in it still read back, the next stay in memory, and
// Err says why.
func TestSpillWriteFails(t *testing.T) {
	s, path := spillTo(t)
	a := s.put(bytes.Repeat([]byte("a"), 100))
	if a.mem != nil {
		t.Fatal("the first block past the limit did not go to the file")
	}
	ro, err := os.Open(path) // the same file, which no longer takes writes
	if err != nil {
		t.Fatal(err)
	}
	s.f.Close()
	s.f = ro
	b := s.put(bytes.Repeat([]byte("b"), 50))
	if b.mem == nil || s.Err() == nil || !strings.Contains(s.Err().Error(), "spill file") {
		t.Fatalf("a failed write: block in memory %v, Err %v", b.mem != nil, s.Err())
	}
	for _, r := range []blockRef{a, b} {
		got, err := s.get(r)
		if err != nil || len(got) == 0 || (got[0] != 'a' && got[0] != 'b') {
			t.Errorf("block %+v reads back as %.10q, %v", r, got, err)
		}
	}
	if c := s.put([]byte("c")); c.mem == nil {
		t.Error("blocks after a failed write should stay in memory")
	}
}

// TestSpillDamagedBlock: a block whose bytes in the file changed is
// refused by its CRC rather than decoded (DEFLATE would take other valid
// data without a word); the log stands in lost steps for it, and a
// player goes through them without a panic.
func TestSpillDamagedBlock(t *testing.T) {
	s, path := spillTo(t)
	l := newStepLog()
	l.store = s
	for i := range 2 * logBlock {
		l.add(Step{Index: i, Frame: i + 1, Kind: KindSend, Conn: 1, op: op(nil).postSeq(uint64(i))})
	}
	if len(l.sealed) != 2 || l.sealed[0].mem != nil {
		t.Fatalf("%d sealed blocks, the first in memory: %v", len(l.sealed), l.sealed[0].mem != nil)
	}
	// The first block's place now holds other bytes that inflate well:
	// the second block's (spilled too, once more, at the end).
	second := compressBlock(encodeSteps(nil, l.block(1)))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	end, _ := f.Seek(0, 2)
	if _, err := f.WriteAt(second, end); err != nil {
		t.Fatal(err)
	}
	f.Close()
	l.sealed[0].off, l.sealed[0].n = end, len(second)
	l.cache = [2]logCache[Step]{{block: -1}, {block: -1}}
	steps := l.block(0)
	if len(steps) != logBlock || steps[0].Kind != KindBreak {
		t.Fatalf("a damaged block gave %d steps, the first %+v", len(steps), steps[0])
	}
	if got := l.at(logBlock + 5); got.Frame != logBlock+6 {
		t.Errorf("the undamaged block's step: %+v", got)
	}
}
