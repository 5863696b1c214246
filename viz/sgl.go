package viz

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"

	"github.com/rdmalab/rdmalab/engine/snap"
)

// sgChunk is SG_CHUNK_SIZE: the pool tables sg_alloc_table_chained adds
// past the first one hold this many entries, the last of them a chain
// link when more follow.
const sgChunk = 128

// chainBreaks returns the entry indexes where a new table starts when
// sg_alloc_table_chained lays out nents entries with a first table of
// first entries: the first table gives its last slot to the chain link.
// It stops at the first break at or past limit.
func chainBreaks(nents, first, limit int) []int {
	if first < 2 || nents <= first {
		return nil
	}
	nents = min(nents, maxEntries) // a claim from a file: the loop below runs nents/127 times
	var out []int
	at, size := 0, first
	for left := nents; left > size && (len(out) == 0 || out[len(out)-1] < limit); {
		at += size - 1
		left -= size - 1
		out = append(out, at)
		size = sgChunk
	}
	return out
}

// sglBreaks is chainBreaks as far as c's SGL goes: the breaks inside it
// and the first one past it (where the last table ends), not the up to
// maxEntries/127 a claimed nents makes.
func sglBreaks(c snap.RWCtxt) []int {
	return chainBreaks(c.NEnts, c.FirstSGLNents, len(c.SGL))
}

// sgItem is one SGL entry, or a run of whole pages from one source.
type sgItem struct {
	first, last         int // entry indexes
	firstPage, lastPage string
	off, n              int
	src                 byteSource
	brk                 bool // a chained table starts here
}

// sgItems groups a context's entries: three or more whole pages in a row
// from one source become one item, never across a chain link.
func sgItems(c snap.RWCtxt, pageSize int) []sgItem {
	// The breaks come sorted: a search, not a map of up to
	// maxEntries/127 of them built for every context.
	breaks := sglBreaks(c)
	brk := func(i int) bool {
		_, found := slices.BinarySearch(breaks, i)
		return found
	}
	whole := func(e snap.SGE) bool { return e.Off == 0 && e.Len == pageSize }
	var out []sgItem
	for i := 0; i < len(c.SGL); {
		e := c.SGL[i]
		j := i + 1
		if whole(e) {
			for j < len(c.SGL) && !brk(j) && whole(c.SGL[j]) && c.SGL[j].Source == e.Source {
				j++
			}
			if j-i < 3 {
				j = i + 1
			}
		}
		out = append(out, sgItem{first: i, last: j - 1, firstPage: e.Page, lastPage: c.SGL[j-1].Page,
			off: e.Off, n: e.Len, src: parseSource(e.Source, c.Where), brk: brk(i)})
		i = j
	}
	return out
}

// ctxtHeader is a context's title line in the SGL list.
func ctxtHeader(c snap.RWCtxt, th Theme) line {
	head := fmt.Sprintf(" %s · %s", c.Type, plural(c.NEnts, "entry", "entries"))
	if c.FirstSGLNents > 0 { // 0: not known (a replayed capture)
		head += fmt.Sprintf(" · first_sgl_nents %d", c.FirstSGLNents)
	}
	l := line{}.add(fmt.Sprintf("rw#%d", c.ID), th.Column).add(head, th.Base)
	if c.Chained {
		l = l.add(" · chained ↪", th.ChainLink)
	}
	return l
}

// sglMemo is what drawing a context's SGL works out once a snapshot: its
// items, the line each starts on in the table, and their widths in the
// compact form.
type sglMemo struct {
	items  []sgItem
	breaks []int
	lineOf []int // table line of each item (a sg_chain line before it if brk)
	n      int   // table lines, its header included
	widths []int // compact form's width of each item
	head   int   // compact form's head width
}

func newSGLMemo(c snap.RWCtxt, pageSize int, th Theme) *sglMemo {
	m := &sglMemo{items: sgItems(c, pageSize), breaks: sglBreaks(c)}
	m.lineOf = make([]int, len(m.items))
	m.widths = make([]int, len(m.items))
	ln := 1
	for j, it := range m.items {
		if it.brk {
			ln++
		}
		m.lineOf[j] = ln
		ln++
		m.widths[j] = compactWidth(it)
	}
	m.n = ln
	m.head = compactHead(c, th).width()
	return m
}

// tableLine is line i of the context's table: its header, then one item a
// line, with a marker line where a chained table starts.
func tableLine(c snap.RWCtxt, m *sglMemo, i int, th Theme) line {
	if i == 0 {
		return ctxtHeader(c, th)
	}
	j, _ := slices.BinarySearch(m.lineOf, i)
	it := m.items[j]
	if m.lineOf[j] != i { // the sg_chain line before item j
		end := c.NEnts - 1
		for _, b := range m.breaks {
			if b > it.first {
				end = b - 1
				break
			}
		}
		return line{}.add(fmt.Sprintf("  ↪ sg_chain → next table: entries %d-%d", it.first, end), th.ChainLink)
	}
	idx := fmt.Sprintf("[%d]", it.first)
	page := it.firstPage
	count := ""
	if it.last > it.first {
		idx = fmt.Sprintf("[%d-%d]", it.first, it.last)
		page = it.firstPage + ".." + it.lastPage
		count = fmt.Sprintf(" ×%d", it.last-it.first+1)
	}
	return line{}.add(fmt.Sprintf("  %-9s %-12s +%-5d %5d%s ", idx, page, it.off, it.n, count), th.Base).
		add(string(it.src.glyph()), th.bytes(it.src, false)).add(" "+it.src.label(), th.Dim)
}

func compactHead(c snap.RWCtxt, th Theme) line {
	return line{}.add(fmt.Sprintf("rw#%-2d", c.ID), th.Column)
}

func compactItem(it sgItem, th Theme) line {
	var l line
	if it.brk {
		l = l.add("↪ ", th.ChainLink)
	}
	l = l.add(string(it.src.glyph()), th.bytes(it.src, false))
	if it.last > it.first {
		return l.add(fmt.Sprintf("(%s..%s,%d,%d)×%d", it.firstPage, it.lastPage, it.off, it.n, it.last-it.first+1), th.Base)
	}
	return l.add(fmt.Sprintf("(%s,%d,%d)", it.firstPage, it.off, it.n), th.Base)
}

// compactWidth is compactItem(it).width(), counted without formatting:
// a snapshot may hold 2^18 items.
func compactWidth(it sgItem) int {
	digits := func(n int) int { return len(strconv.Itoa(n)) }
	n := 1 + 1 + utf8.RuneCountInString(it.firstPage) + 1 + digits(it.off) + 1 + digits(it.n) + 1 // g(page,off,len)
	if it.brk {
		n += 2
	}
	if it.last > it.first {
		n += 2 + utf8.RuneCountInString(it.lastPage) + 1 + digits(it.last-it.first+1) // ..last and ×count
	}
	return n
}

// compactLine is line i of a context in the kernel's (page,off,len)
// notation, its items packed into lines where breaks says.
func compactLine(c snap.RWCtxt, m *sglMemo, breaks []int, i int, th Theme) line {
	lo, hi := breaks[i], len(m.items)
	if i+1 < len(breaks) {
		hi = breaks[i+1]
	}
	l := compactHead(c, th)
	if i > 0 {
		l = line{}.add(strings.Repeat(" ", m.head), tcell.StyleDefault)
	}
	for _, it := range m.items[lo:hi] {
		l = append(l.add(" ", tcell.StyleDefault), compactItem(it, th)...)
	}
	return l
}

// legend explains the page glyphs.
func legend(th Theme) line {
	l := line{}
	for _, g := range []struct {
		src  byteSource
		text string
	}{{byteSource{kind: srcInline}, " inline  "}, {byteSource{kind: srcRead}, "-9 read chunk  "}, {byteSource{kind: srcCall}, " call  "},
		{byteSource{kind: srcWrite}, " write  "}, {byteSource{kind: srcReply}, " reply  "}} {
		l = l.add(string(g.src.glyph()), th.bytes(g.src, true)).add(g.text, th.Dim)
		if g.src.kind == srcRead {
			l = l.add(string(pendingGlyph), th.bytes(g.src, false)).add(" to come  ", th.Dim)
		}
	}
	return l.add("· empty  ", th.Dim).add("▲", th.Cursor).add(" rc_curpage", th.Dim)
}

// pageSizeOf is the snapshot's page size (4096 when unset or absurd).
func pageSizeOf(s *snap.Snapshot) int {
	if s.Settings.PageSize > 0 && s.Settings.PageSize <= maxPageSize {
		return s.Settings.PageSize
	}
	return 4096
}

// plural is "1 entry", "2 entries".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// repeat is strings.Repeat that accepts a negative count.
func repeat(s string, n int) string { return strings.Repeat(s, max(n, 0)) }
