package nfsd

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/rdmalab/rdmalab/engine/svcrdma"
)

// dataPattern is the numbered lines fmt would print, cut at n.
func TestDataPatternLines(t *testing.T) {
	var want []byte
	for i := 0; len(want) < DataSize+200; i++ {
		want = fmt.Appendf(want, "%-63s\n", fmt.Sprintf("data %06d of the rdmalab export: abcdefghijklmnopqrstuvwxyz", i))
	}
	for _, n := range []int{0, 1, 63, 64, 65, 4097, DataSize, DataSize + 100} {
		if got := dataPattern(n); !bytes.Equal(got, want[:n]) {
			t.Errorf("dataPattern(%d) differs from the fmt lines", n)
		}
	}
}

// A file's bytes live in page-sized pages: writes at any offset, holes,
// growth and truncation read back as a flat byte slice would, and each
// page's extent covers the file's share of it.
func TestFilePageCache(t *testing.T) {
	const ps = 4096
	s := New(ps)
	f := s.Lookup("data")
	if f.Size() != DataSize || !bytes.Equal(f.Bytes(), dataPattern(DataSize)) {
		t.Fatalf("a fresh data file has %d bytes, want the %d-byte pattern", f.Size(), DataSize)
	}
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	var want []byte
	write := func(off int, b []byte) {
		t.Helper()
		if n, err := f.WriteAt(b, int64(off)); err != nil || n != len(b) {
			t.Fatalf("WriteAt(%d bytes, %d) = %d, %v", len(b), off, n, err)
		}
		if end := off + len(b); end > len(want) {
			want = append(want, make([]byte, end-len(want))...)
		}
		copy(want[off:], b)
	}
	check := func(what string) {
		t.Helper()
		if f.Size() != len(want) || !bytes.Equal(f.Bytes(), want) {
			t.Fatalf("%s: the file has %d bytes that differ from the %d expected", what, f.Size(), len(want))
		}
		for i := 0; i*ps < f.Size(); i++ {
			p := f.Page(i)
			share := min(ps, f.Size()-i*ps)
			if len(p.Data) != ps || len(p.Extents) != 1 || p.Extents[0].Off != 0 || p.Extents[0].Len != share || p.Extents[0].Source != "page cache" {
				t.Fatalf("%s: page %d (%s) has %d bytes and extents %+v, want one page-cache extent of %d", what, i, p.Name(), len(p.Data), p.Extents, share)
			}
		}
	}
	write(0, bytes.Repeat([]byte("a"), 100))
	check("a write in the first page")
	write(4000, bytes.Repeat([]byte("b"), 9000)) // across three pages
	check("a write across pages")
	write(50000, []byte("c")) // past the end: a hole of zeros
	check("a write past the end")
	if got := f.Page(0).Name(); got != "d#0" {
		t.Errorf("page 0 is named %q, want d#0", got)
	}
	if err := f.Truncate(4500); err != nil {
		t.Fatal(err)
	}
	want = want[:4500]
	check("a truncation")
	if f.Page(1).Extents[0].Len != 404 || len(f.Page(2).Extents) != 0 {
		t.Errorf("after truncating to 4500, page 1 extents %+v, page 2 %+v", f.Page(1).Extents, f.Page(2).Extents)
	}
	if err := f.Truncate(20000); err != nil { // the cut bytes come back as zeros
		t.Fatal(err)
	}
	want = append(want, make([]byte, 20000-4500)...)
	check("a truncation that grows")
	for _, bad := range []struct {
		off int64
		n   int
	}{{-1, 1}, {MaxFileSize, 1}, {MaxFileSize + 1, 0}} {
		if _, err := f.WriteAt(make([]byte, bad.n), bad.off); err == nil {
			t.Errorf("WriteAt(%d bytes, %d) did not fail", bad.n, bad.off)
		}
	}
	if err := f.Truncate(-1); err == nil {
		t.Error("Truncate(-1) did not fail")
	}
	if _, err := s.Root.WriteAt([]byte("x"), 0); err == nil {
		t.Error("a write to the directory did not fail")
	}
	if err := s.Root.Truncate(10); err == nil {
		t.Error("truncating the directory did not fail")
	}
	check("after the refused calls")
	if f.Page(-1) != nil || f.Page(1<<20) != nil {
		t.Error("Page out of range is not nil")
	}
}

// A file that grows page by page takes few regions: each new one is at
// least as large as the pages already there.
func TestFileGrowsByRegions(t *testing.T) {
	const ps = 4096
	f := New(ps).Lookup("file-000.txt")
	for off := 0; off < 1<<20; off += ps {
		if _, err := f.WriteAt(make([]byte, ps), int64(off)); err != nil {
			t.Fatal(err)
		}
	}
	regions := map[*svcrdma.Region]bool{}
	for i := 0; f.Page(i) != nil; i++ {
		regions[f.Page(i).Region()] = true
	}
	if n := len(regions); n > 10 {
		t.Errorf("1 MiB written page by page took %d regions, want at most 10 (log2 of 256 pages + 1)", n)
	}
}
