package svcrdma

import (
	"strconv"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// Page is one page of server memory (struct page). Its bytes are real: the
// provider's RDMA Reads land in Data, and Sends and RDMA Writes gather from
// it. DMA is its device address, mapped once when the page is allocated.
type Page struct {
	ID    int
	Label string // a buffer that is not an rq_pages page: "hdr1", "rcv3"
	Data  []byte
	DMA   uint64
	// Extents records where the bytes came from, for drawing.
	Extents []Extent
	// region is set on a page the service lends (the page cache's): the
	// transport never recycles it nor reads a call into it.
	region *Region
}

// Lent reports whether p is a page the service lent the transport (see
// Region) rather than one of the transport's own.
func (p *Page) Lent() bool { return p != nil && p.region != nil }

// Region is the region a lent page was carved from, nil for the
// transport's own pages.
func (p *Page) Region() *Region {
	if p == nil {
		return nil
	}
	return p.region
}

// Region is memory the service owns and lends pages of, such as a file's
// page cache: one buffer carved into pages. The transport maps it for DMA
// as one piece the first time it sends one of its pages, so a file costs
// one mapping (one MR on a real device) per region, not one per page.
type Region struct {
	Pages []*Page
	data  []byte
	pd    verbs.PD // the PD it is mapped in, nil before the first send
	dma   uint64
}

// NewRegion carves n pages of ps bytes, zeroed, from one buffer; page i is
// named label followed by first+i.
func NewRegion(n, ps, first int, label string) *Region {
	r := &Region{data: make([]byte, n*ps), Pages: make([]*Page, n)}
	pages := make([]Page, n)
	for i := range pages {
		p := &pages[i]
		p.ID, p.Label, p.region = first+i, label+strconv.Itoa(first+i), r
		p.Data = r.data[i*ps : (i+1)*ps : (i+1)*ps]
		r.Pages[i] = p
	}
	return r
}

// mapRegion maps r in pd (once; again only if another PD asks) and gives
// its pages their device addresses.
func mapRegion(pd verbs.PD, r *Region) error {
	if r.pd == pd {
		return nil
	}
	addr, err := pd.DMAMap(r.data)
	if err != nil {
		return err
	}
	r.pd, r.dma = pd, addr
	for i, p := range r.Pages {
		p.DMA = addr + uint64(i*len(p.Data))
	}
	return nil
}

// Name is how events and views print the page.
func (p *Page) Name() string {
	if p == nil {
		return "NULL"
	}
	if p.Label != "" {
		return p.Label
	}
	return "pg" + strconv.Itoa(p.ID)
}

// appendName appends Name() to b.
func (p *Page) appendName(b []byte) []byte {
	switch {
	case p == nil:
		return append(b, "NULL"...)
	case p.Label != "":
		return append(b, p.Label...)
	}
	return strconv.AppendInt(append(b, "pg"...), int64(p.ID), 10)
}

// Extent is a byte range of a page and where its bytes came from. A
// snapshot carries it as snap.Extent, which has the same fields.
type Extent struct {
	Off    int
	Len    int
	Source string // "inline", "read chunk 1 seg 0", "call chunk", "reply", ...
}

// mark records that [off, off+n) of p now holds bytes from src.
func (p *Page) mark(off, n int, src string) {
	if p == nil || n <= 0 {
		return
	}
	end := off + n
	kept := p.Extents[:0]
	for _, e := range p.Extents {
		eEnd := e.Off + e.Len
		if eEnd <= off || e.Off >= end {
			kept = append(kept, e)
			continue
		}
		if e.Off < off {
			kept = append(kept, Extent{e.Off, off - e.Off, e.Source})
		}
		if eEnd > end {
			kept = append(kept, Extent{end, eEnd - end, e.Source})
		}
	}
	kept = append(kept, Extent{off, n, src})
	// keep sorted by offset: few extents, insertion sort
	for i := len(kept) - 1; i > 0 && kept[i].Off < kept[i-1].Off; i-- {
		kept[i], kept[i-1] = kept[i-1], kept[i]
	}
	p.Extents = kept
}

// SGE is one scatterlist entry: (page, offset, length).
type SGE struct {
	Page *Page
	Off  int
	Len  int
	src  string // where the bytes come from (for drawing)
}

func (s SGE) String() string { return string(s.AppendArg(make([]byte, 0, 24))) }

// AppendArg appends String() to b (trace.Appender).
func (s SGE) AppendArg(b []byte) []byte {
	b = s.Page.appendName(append(b, '('))
	b = strconv.AppendInt(append(b, ','), int64(s.Off), 10)
	b = strconv.AppendInt(append(b, ','), int64(s.Len), 10)
	return append(b, ')')
}

// Kvec is a byte range inside a page (struct kvec): the head and tail of an
// xdr_buf.
type Kvec struct {
	Page *Page
	Off  int
	Len  int
}

// Bytes is the kvec's content.
func (k Kvec) Bytes() []byte {
	if k.Page == nil || k.Len == 0 {
		return nil
	}
	return k.Page.Data[k.Off : k.Off+k.Len]
}

// XdrBuf is struct xdr_buf: a head kvec, a page list and a tail kvec.
type XdrBuf struct {
	Head     Kvec
	Pages    []*Page
	PageBase int
	PageLen  int
	Tail     Kvec
	Len      int
}

// Flatten copies the buffer's content into one slice (for the upper layer's
// decoders and for tests).
func (x *XdrBuf) Flatten(pageSize int) []byte {
	out := make([]byte, 0, x.Head.Len+x.PageLen+x.Tail.Len)
	out = append(out, x.Head.Bytes()...)
	rem, off := x.PageLen, x.PageBase
	for rem > 0 {
		idx := off / pageSize
		po := off % pageSize
		n := min(rem, pageSize-po)
		if idx >= len(x.Pages) || x.Pages[idx] == nil {
			out = append(out, make([]byte, n)...)
		} else {
			out = append(out, x.Pages[idx].Data[po:po+n]...)
		}
		rem -= n
		off += n
	}
	return append(out, x.Tail.Bytes()...)
}

// subsegment is xdr_buf_subsegment: the part of x in [off, off+n).
func (x *XdrBuf) subsegment(off, n int) (XdrBuf, bool) {
	if off < 0 || n < 0 || off+n > x.Len {
		return XdrBuf{}, false
	}
	var out XdrBuf
	out.Len = n
	// head
	if off < x.Head.Len {
		take := min(n, x.Head.Len-off)
		out.Head = Kvec{x.Head.Page, x.Head.Off + off, take}
		off, n = 0, n-take
	} else {
		off -= x.Head.Len
	}
	// pages
	if off < x.PageLen {
		take := min(n, x.PageLen-off)
		out.Pages = x.Pages
		out.PageBase = x.PageBase + off
		out.PageLen = take
		off, n = 0, n-take
	} else {
		off -= x.PageLen
	}
	if n > 0 {
		out.Tail = Kvec{x.Tail.Page, x.Tail.Off + off, n}
	}
	return out, true
}

// align4 is XDR roundup.
func align4(n int) int { return (n + 3) &^ 3 }
