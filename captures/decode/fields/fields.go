package fields

// The field registry: every field rdmalab knows of a packet, with its
// name, type and how to take every occurrence of it from a decoded
// Packet. The display filter (-Y), -T fields and `decode --fields` read it;
// --json writes the same names (fields_test.go holds the two together).
// Names Wireshark has are Wireshark's, with tshark 4.0's meaning and value;
// rdmalab's own findings are under "rdmalab.".

import (
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/appendtext"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/captures/dfilter"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// FieldDef is one field of the registry.
type FieldDef struct {
	Name string
	Type dfilter.Type
	Bits int    // TypeUint: the width of Wireshark's type (FT_UINT24: 24)
	Hex  bool   // printed as 0x and Bits/4 digits, as tshark prints it
	Time bool   // TypeFloat holding nanoseconds in U: printed with 9 decimals
	Desc string // what it is, in a few words

	get getter
	raw func(p *analysis.Packet) []byte // a protocol's bytes, for slices and contains (nil: not kept)
}

// Origin is "Wireshark" for Wireshark's fields, "rdmalab" for rdmalab's.
func (f *FieldDef) Origin() string {
	if strings.HasPrefix(f.Name, "rdmalab.") {
		return "rdmalab"
	}
	return "Wireshark"
}

type getter func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value

// Fields is the registry, by name.
type Fields struct {
	defs   []FieldDef
	byName map[string]int
	names  []string
}

var registry = newFields(fieldDefs())

// Registry returns the registry of the fields rdmalab decodes.
func Registry() *Fields { return registry }

func newFields(defs []FieldDef) *Fields {
	f := &Fields{defs: defs, byName: make(map[string]int, len(defs))}
	for i, d := range defs {
		if _, dup := f.byName[d.Name]; dup {
			panic("decode: field " + d.Name + " registered twice")
		}
		f.byName[d.Name] = i
		f.names = append(f.names, d.Name)
	}
	sort.Strings(f.names)
	return f
}

// All returns every field, in the registry's order (by layer).
func (f *Fields) All() []FieldDef { return f.defs }

// Def returns the field called name. rdmalab's fields may be named without
// their "rdmalab." prefix when no Wireshark field has that name
// (icrc_ok, psn_status, msg.kind, chunk).
func (f *Fields) Def(name string) (*FieldDef, bool) {
	i, ok := f.byName[name]
	if !ok {
		i, ok = f.byName["rdmalab."+name]
	}
	if !ok {
		return nil, false
	}
	return &f.defs[i], true
}

// Lookup is dfilter.Schema's.
func (f *Fields) Lookup(name string) (dfilter.Field, bool) {
	d, ok := f.Def(name)
	if !ok {
		return dfilter.Field{}, false
	}
	return dfilter.Field{ID: f.byName[d.Name], Type: d.Type, Bits: d.Bits, Raw: d.raw != nil}, true
}

// Names is dfilter.Schema's: every name, sorted.
func (f *Fields) Names() []string { return f.names }

// Values appends every occurrence of field id (an index in All) in p.
func (f *Fields) Values(id int, p *analysis.Packet, dst []dfilter.Value) []dfilter.Value {
	return f.defs[id].get(p, dst)
}

// Values appends the values of f in p to dst.
func (f *FieldDef) Values(p *analysis.Packet, dst []dfilter.Value) []dfilter.Value {
	return f.get(p, dst)
}

// Record returns p as a dfilter.Record of this registry.
func (f *Fields) Record(p *analysis.Packet) dfilter.Record { return record{f, p} }

type record struct {
	f *Fields
	p *analysis.Packet
}

func (r record) Values(id int, dst []dfilter.Value) []dfilter.Value {
	return r.f.defs[id].get(r.p, dst)
}

// Raw is dfilter.RawRecord's: the bytes of a protocol the packet has.
// record is not a dfilter.Layered: rdmalab decodes no protocol inside
// another of its name, so every value is in layer 1, dfilter's default.
func (r record) Raw(id int, dst []dfilter.Value) []dfilter.Value {
	d := &r.f.defs[id]
	if d.raw == nil {
		return dst
	}
	if b := d.raw(r.p); b != nil {
		dst = append(dst, dfilter.Bytes(b))
	}
	return dst
}

// DisplayFilter is a compiled display filter (-Y) over the registry.
type DisplayFilter struct {
	f    *dfilter.Filter
	text bool // it names a TextField
}

// CompileDisplayFilter compiles a display filter with Wireshark's syntax
// (package dfilter) over the registry's fields. Its errors are
// *dfilter.Error, which name the column.
func CompileDisplayFilter(expr string) (*DisplayFilter, error) {
	l := &lookups{Fields: registry}
	f, err := dfilter.Compile(expr, l)
	if err != nil {
		return nil, err
	}
	return &DisplayFilter{f: f, text: l.text}, nil
}

// ReadsText reports whether the filter tests a TextField.
func (d *DisplayFilter) ReadsText() bool { return d != nil && d.text }

// TextField reports whether the field called name is a text the analysis
// leaves empty under analysis.Options.SkipText.
func TextField(name string) bool { return name == "rdmalab.note.text" || name == "rdmalab.not_rpc" }

// lookups is the registry as a filter's dfilter.Schema, noting whether
// the filter names a TextField.
type lookups struct {
	*Fields
	text bool
}

func (l *lookups) Lookup(name string) (dfilter.Field, bool) {
	if d, ok := l.Def(name); ok && TextField(d.Name) {
		l.text = true
	}
	return l.Fields.Lookup(name)
}

// Match reports whether p passes; a nil filter passes every packet.
func (d *DisplayFilter) Match(p *analysis.Packet) bool {
	return d == nil || d.f.Match(record{registry, p})
}

// String returns the expression.
func (d *DisplayFilter) String() string {
	if d == nil {
		return ""
	}
	return d.f.String()
}

// Constructors of the definitions: one value (present when ok), or a
// getter of every occurrence.

func fu(name string, bits int, hex bool, desc string, g func(p *analysis.Packet) (uint64, bool)) FieldDef {
	return FieldDef{Name: name, Type: dfilter.TypeUint, Bits: bits, Hex: hex, Desc: desc,
		get: func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			if v, ok := g(p); ok {
				vs = append(vs, dfilter.Uint(v))
			}
			return vs
		}}
}

func fb(name, desc string, g func(p *analysis.Packet) (bool, bool)) FieldDef {
	return FieldDef{Name: name, Type: dfilter.TypeBool, Desc: desc,
		get: func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			if v, ok := g(p); ok {
				vs = append(vs, dfilter.Bool(v))
			}
			return vs
		}}
}

func fs(name, desc string, g func(p *analysis.Packet) (string, bool)) FieldDef {
	return FieldDef{Name: name, Type: dfilter.TypeString, Desc: desc,
		get: func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			if v, ok := g(p); ok {
				vs = append(vs, dfilter.String(v))
			}
			return vs
		}}
}

func fa(name string, t dfilter.Type, desc string, g func(p *analysis.Packet) (netip.Addr, bool)) FieldDef {
	return FieldDef{Name: name, Type: t, Desc: desc,
		get: func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			if v, ok := g(p); ok {
				vs = append(vs, dfilter.Addr(v))
			}
			return vs
		}}
}

// fp is a protocol or marker field: present or not.
func fp(name, desc string, g func(p *analysis.Packet) bool) FieldDef {
	return FieldDef{Name: name, Type: dfilter.TypeNone, Desc: desc,
		get: func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			if g(p) {
				vs = append(vs, dfilter.Value{})
			}
			return vs
		}}
}

func fm(name string, t dfilter.Type, bits int, hex bool, desc string, g getter) FieldDef {
	return FieldDef{Name: name, Type: t, Bits: bits, Hex: hex, Desc: desc, get: g}
}

func u64[T ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~int](v T) uint64 { return uint64(v) }

// Helpers that take a layer or an analysis record, or say it is absent.

func bthU(name string, bits int, hex bool, desc string, g func(b *ib.BTH) uint64) FieldDef {
	return fu(name, bits, hex, desc, func(p *analysis.Packet) (uint64, bool) {
		if p.BTH == nil {
			return 0, false
		}
		return g(p.BTH), true
	})
}

func bthB(name, desc string, g func(b *ib.BTH) bool) FieldDef {
	return fb(name, desc, func(p *analysis.Packet) (bool, bool) {
		if p.BTH == nil {
			return false, false
		}
		return g(p.BTH), true
	})
}

// ext is an extension header's field: present when the BTH has header h.
func ext(name string, h ib.Headers, bits int, hex bool, desc string, g func(b *ib.BTH) uint64) FieldDef {
	return fu(name, bits, hex, desc, func(p *analysis.Packet) (uint64, bool) {
		if p.BTH == nil || p.BTH.Headers&h == 0 {
			return 0, false
		}
		return g(p.BTH), true
	})
}

func extP(name string, h ib.Headers, desc string, raw func(b *ib.BTH) []byte) FieldDef {
	return withRaw(fp(name, desc, func(p *analysis.Packet) bool { return p.BTH != nil && p.BTH.Headers&h != 0 }), func(p *analysis.Packet) []byte {
		if p.BTH == nil || p.BTH.Headers&h == 0 {
			return nil
		}
		return raw(p.BTH)
	})
}

// withRaw gives a protocol field its bytes (nil when absent).
func withRaw(d FieldDef, raw func(p *analysis.Packet) []byte) FieldDef {
	d.raw = raw
	return d
}

// layerSpan is a layer's bytes with what follows it (its payload), when the
// two lie one after the other in the frame.
func layerSpan(contents, payload []byte) []byte {
	n := len(contents)
	if n == 0 || len(payload) == 0 || cap(contents) < n+len(payload) || &contents[:n+1][n] != &payload[0] {
		return contents
	}
	return contents[:n+len(payload)]
}

// infinibandBytes are the InfiniBand packet's, from its first header (LRH,
// GRH of RoCEv1, or BTH) to the ICRC and VCRC, as Wireshark's infiniband
// protocol covers them.
func infinibandBytes(p *analysis.Packet) []byte {
	switch {
	case p.UDP != nil && p.BTH != nil:
		return p.UDP.Payload
	case p.LRH != nil:
		return layerSpan(p.LRH.Contents, p.LRH.Payload)
	case p.GRH != nil:
		return layerSpan(p.GRH.Contents, p.GRH.Payload)
	case p.BTH != nil:
		return layerSpan(p.BTH.Contents, p.BTH.LayerPayload())
	}
	return nil
}

// extBytes is an extension header Wireshark shows as bytes (ImmDt, IETH).
func extBytes(name string, h ib.Headers, desc string, g func(b *ib.BTH) uint32) FieldDef {
	return fm(name, dfilter.TypeBytes, 0, false, desc, func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
		if p.BTH == nil || p.BTH.Headers&h == 0 {
			return vs
		}
		v := g(p.BTH)
		return append(vs, dfilter.Bytes([]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}))
	})
}

func lrhU(name string, bits int, hex bool, desc string, g func(l *ib.LRH) uint64) FieldDef {
	return fu(name, bits, hex, desc, func(p *analysis.Packet) (uint64, bool) {
		if p.LRH == nil {
			return 0, false
		}
		return g(p.LRH), true
	})
}

func grhU(name string, bits int, desc string, g func(l *ib.GRH) uint64) FieldDef {
	return fu(name, bits, false, desc, func(p *analysis.Packet) (uint64, bool) {
		if p.GRH == nil {
			return 0, false
		}
		return g(p.GRH), true
	})
}

func madU(name string, bits int, desc string, g func(m *ib.MAD) uint64) FieldDef {
	return fu(name, bits, true, desc, func(p *analysis.Packet) (uint64, bool) {
		if p.MAD == nil {
			return 0, false
		}
		return g(p.MAD), true
	})
}

// cm is a field of one CM message type T.
func cm[T any](name string, bits int, hex bool, desc string, g func(c *T) uint64) FieldDef {
	return fu(name, bits, hex, desc, func(p *analysis.Packet) (uint64, bool) {
		c, ok := any(p.CM).(*T)
		if !ok {
			return 0, false
		}
		return g(c), true
	})
}

// rpcMsg returns the RPC-over-RDMA message p completes.
func rpcMsg(p *analysis.Packet) (*analysis.RPCMessage, bool) {
	return p.Analysis.RPC, p.Analysis.RPC != nil
}

func rdmaU(name string, bits int, hex bool, desc string, g func(h *rpcrdma.Header) (uint64, bool)) FieldDef {
	return fu(name, bits, hex, desc, func(p *analysis.Packet) (uint64, bool) {
		if m, ok := rpcMsg(p); ok {
			return g(&m.Header)
		}
		return 0, false
	})
}

// hasChunkLists says whether a header of this type carries the chunk
// lists (as --json writes them: not RDMA_ERROR, not RDMA_DONE).
func hasChunkLists(h *rpcrdma.Header) bool {
	return h.Proc != rpcrdma.ProcError && h.Proc != rpcrdma.ProcDone
}

// oncRPC returns the RPC message p carries when it has the ONC RPC fields
// (as jsonONCRPC writes them).
func oncRPC(p *analysis.Packet) (*analysis.RPCMessage, *analysis.RPC, bool) {
	m := p.Analysis.RPC
	if m == nil || m.RPC == nil || m.Header.Proc == rpcrdma.ProcError || (m.Call && !m.RPC.HaveProc) {
		return nil, nil, false
	}
	return m, m.RPC, true
}

func rpcU(name string, hex bool, desc string, needProc bool, g func(m *analysis.RPCMessage, r *analysis.RPC) uint64) FieldDef {
	return fu(name, 32, hex, desc, func(p *analysis.Packet) (uint64, bool) {
		m, r, ok := oncRPC(p)
		if !ok || needProc && !r.HaveProc {
			return 0, false
		}
		return g(m, r), true
	})
}

// nfsFields returns the NFS fields of the message p carries.
func nfsFields(p *analysis.Packet) (*nfs.Fields, bool, bool) {
	m, r, ok := oncRPC(p)
	if !ok || !r.HaveProc {
		return nil, false, false
	}
	f := r.ReplyNFS
	if m.Call {
		f = r.CallNFS
	}
	return f, m.Call, f != nil
}

func nfsU(name string, bits int, desc string, g func(f *nfs.Fields, call bool) (uint64, bool)) FieldDef {
	return fu(name, bits, false, desc, func(p *analysis.Packet) (uint64, bool) {
		f, call, ok := nfsFields(p)
		if !ok {
			return 0, false
		}
		return g(f, call)
	})
}

func nfsStr(name, desc string) FieldDef {
	return fm(name, dfilter.TypeString, 0, false, desc, func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
		f, _, ok := nfsFields(p)
		if !ok {
			return vs
		}
		for _, s := range f.Strings {
			if s.Field == name {
				vs = append(vs, dfilter.String(s.Value))
			}
		}
		return vs
	})
}

func msgOf(p *analysis.Packet) (*analysis.Message, bool) {
	return p.Analysis.Msg, p.Analysis.Msg != nil
}

func msgU(name, desc string, g func(p *analysis.Packet, m *analysis.Message) uint64) FieldDef {
	return fu(name, 32, false, desc, func(p *analysis.Packet) (uint64, bool) {
		if m, ok := msgOf(p); ok {
			return g(p, m), true
		}
		return 0, false
	})
}

// atomicMsg returns the atomic p belongs to.
func atomicMsg(p *analysis.Packet) (*analysis.Message, bool) {
	m := p.Analysis.Msg
	return m, m != nil && m.Kind == ib.KindAtomic
}

func atomicU(name string, bits int, hex bool, desc string, g func(m *analysis.Message) (uint64, bool)) FieldDef {
	return fu(name, bits, hex, desc, func(p *analysis.Packet) (uint64, bool) {
		if m, ok := atomicMsg(p); ok {
			return g(m)
		}
		return 0, false
	})
}

func ackU(name, desc string, g func(a *analysis.AckInfo) (uint64, bool)) FieldDef {
	return fu(name, 32, false, desc, func(p *analysis.Packet) (uint64, bool) {
		if a := p.Analysis.Ack; a != nil {
			return g(a)
		}
		return 0, false
	})
}

func ackEach(name string, t dfilter.Type, desc string, g func(m *analysis.Message) dfilter.Value) FieldDef {
	return fm(name, t, 32, false, desc, func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
		if a := p.Analysis.Ack; a != nil {
			for _, m := range a.Acked {
				vs = append(vs, g(m))
			}
		}
		return vs
	})
}

func chunkU(name string, bits int, hex bool, desc string, g func(c *analysis.ChunkRef) uint64) FieldDef {
	return fu(name, bits, hex, desc, func(p *analysis.Packet) (uint64, bool) {
		if c := &p.Analysis.Chunk; c.RPC != nil {
			return g(c), true
		}
		return 0, false
	})
}

func noteEach(name string, t dfilter.Type, desc string, g func(n analysis.Note) dfilter.Value) FieldDef {
	return fm(name, t, 0, false, desc, func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
		for _, n := range p.Analysis.Notes {
			vs = append(vs, g(n))
		}
		return vs
	})
}

// wireSegs is a field of every segment of the header p carries, in wire
// order: Read list, Write list, Reply chunk.
func wireSegs(name string, bits int, hex bool, desc string, g func(s rpcrdma.Segment) uint64) FieldDef {
	return fm(name, dfilter.TypeUint, bits, hex, desc, func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
		m, ok := rpcMsg(p)
		if !ok || !hasChunkLists(&m.Header) {
			return vs
		}
		h := &m.Header
		for _, s := range h.ReadList {
			vs = append(vs, dfilter.Uint(g(s.Segment)))
		}
		for _, c := range h.WriteList {
			for _, s := range c.Segments {
				vs = append(vs, dfilter.Uint(g(s)))
			}
		}
		if h.ReplyChunk != nil {
			for _, s := range h.ReplyChunk.Segments {
				vs = append(vs, dfilter.Uint(g(s)))
			}
		}
		return vs
	})
}

// timeValue is a time in nanoseconds: F in seconds for comparisons, U the
// nanoseconds for printing exactly.
func timeValue(ns int64) dfilter.Value { return dfilter.Value{F: float64(ns) / 1e9, U: uint64(ns)} }

// crcOK is a CRC's verdict: true, false, or absent when there is no CRC or
// it cannot be checked.
func crcOK(name, desc string, g func(p *analysis.Packet) frame.CRCState) FieldDef {
	return fb(name, desc, func(p *analysis.Packet) (bool, bool) {
		switch g(p) {
		case frame.CRCGood:
			return true, true
		case frame.CRCBad:
			return false, true
		}
		return false, false
	})
}

// cmGID is a REQ primary path GID Wireshark shows as IPv4 (…_ipv4): when
// both GIDs of the path are IPv4-mapped.
func cmGID(name, desc string, g func(c *ib.CMReq) ib.GID) FieldDef {
	return fa(name, dfilter.TypeIPv4, desc, func(p *analysis.Packet) (netip.Addr, bool) {
		c, ok := p.CM.(*ib.CMReq)
		if !ok {
			return netip.Addr{}, false
		}
		local, remote := frame.IPAddr16(c.Primary.LocalGID), frame.IPAddr16(c.Primary.RemoteGID)
		if !local.Is4() || !remote.Is4() {
			return netip.Addr{}, false
		}
		return frame.IPAddr16(g(c)), true
	})
}

func ipCM(p *analysis.Packet) (ib.IPCM, bool) {
	c, ok := p.CM.(*ib.CMReq)
	if !ok {
		return ib.IPCM{}, false
	}
	return c.IPCM()
}

func ipCMU(name string, bits int, desc string, g func(ip ib.IPCM) uint64) FieldDef {
	return fu(name, bits, true, desc, func(p *analysis.Packet) (uint64, bool) {
		ip, ok := ipCM(p)
		return g(ip), ok
	})
}

func ipCMAddr(name string, ver uint8, desc string, g func(ip ib.IPCM) netip.Addr) FieldDef {
	t := dfilter.TypeIPv4
	if ver == 6 {
		t = dfilter.TypeIPv6
	}
	return fa(name, t, desc, func(p *analysis.Packet) (netip.Addr, bool) {
		ip, ok := ipCM(p)
		if !ok || ip.IPVer != ver {
			return netip.Addr{}, false
		}
		a := g(ip)
		if ver == 4 {
			a = a.Unmap()
		}
		return a, true
	})
}

// segmentCounts is rpcordma.segment_count: the segments of each Write
// chunk, then of the Reply chunk.
func segmentCounts(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
	m, ok := rpcMsg(p)
	if !ok || !hasChunkLists(&m.Header) {
		return vs
	}
	for _, c := range m.Header.WriteList {
		vs = append(vs, dfilter.Uint(u64(len(c.Segments))))
	}
	if m.Header.ReplyChunk != nil {
		vs = append(vs, dfilter.Uint(u64(len(m.Header.ReplyChunk.Segments))))
	}
	return vs
}

func authSysS(name, desc string, g func(a *oncrpc.AuthSysParams) dfilter.Value, t dfilter.Type, bits int) FieldDef {
	return fm(name, t, bits, false, desc, func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
		m, r, ok := oncRPC(p)
		if !ok || !r.HaveProc || !m.Call || r.AuthSys == nil {
			return vs
		}
		return append(vs, g(r.AuthSys))
	})
}

func nfsEach(name, desc string, g func(f *nfs.Fields, vs []dfilter.Value) []dfilter.Value) FieldDef {
	return fm(name, dfilter.TypeUint, 32, false, desc, func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
		f, _, ok := nfsFields(p)
		if !ok {
			return vs
		}
		return g(f, vs)
	})
}

// nfsStatus is nfs.status: NFSv3's status, or the COMPOUND's and then
// each operation's.
func nfsStatus(f *nfs.Fields, vs []dfilter.Value) []dfilter.Value {
	for st := range f.Statuses() {
		vs = append(vs, dfilter.Uint(u64(st)))
	}
	return vs
}

func rpcS(name, desc string, g func(m *analysis.RPCMessage) (string, bool)) FieldDef {
	return fs(name, desc, func(p *analysis.Packet) (string, bool) {
		if m, ok := rpcMsg(p); ok {
			return g(m)
		}
		return "", false
	})
}

func rpcMU(name, desc string, g func(m *analysis.RPCMessage) (uint64, bool)) FieldDef {
	return fu(name, 32, false, desc, func(p *analysis.Packet) (uint64, bool) {
		if m, ok := rpcMsg(p); ok {
			return g(m)
		}
		return 0, false
	})
}

func rProg(r *analysis.RPC) uint32 {
	if r == nil {
		return 0
	}
	return r.Prog
}

func rVers(r *analysis.RPC) uint32 {
	if r == nil {
		return 0
	}
	return r.Vers
}

func rProc(r *analysis.RPC) uint32 {
	if r == nil {
		return 0
	}
	return r.Proc
}

// cmGID6 is a REQ primary path GID as an IPv6 address, when the path's
// GIDs are not both IPv4-mapped.
func cmGID6(name, desc string, g func(c *ib.CMReq) ib.GID) FieldDef {
	return fa(name, dfilter.TypeIPv6, desc, func(p *analysis.Packet) (netip.Addr, bool) {
		c, ok := p.CM.(*ib.CMReq)
		if !ok || frame.IPAddr16(c.Primary.LocalGID).Is4() && frame.IPAddr16(c.Primary.RemoteGID).Is4() {
			return netip.Addr{}, false
		}
		return frame.GIDIPv6(g(c)), true
	})
}

// xidsOf is rdmalab.xid: the XIDs of the RPCs p belongs to, each once.
func xidsOf(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
	start := len(vs)
	add := func(xid uint32) {
		v := dfilter.Uint(u64(xid))
		if !slices.Contains(vs[start:], v) {
			vs = append(vs, v)
		}
	}
	an := &p.Analysis
	if an.RPC != nil {
		add(an.RPC.Header.XID)
	}
	if an.Chunk.RPC != nil {
		add(an.Chunk.RPC.XID)
	}
	if m := an.Msg; m != nil && m.Chunk != nil {
		add(m.Chunk.RPC.XID)
	}
	if an.Ack != nil {
		for _, m := range an.Ack.Acked {
			if m.RPC != nil {
				add(m.RPC.Header.XID)
			}
			if m.Chunk != nil {
				add(m.Chunk.RPC.XID)
			}
		}
	}
	return vs
}

// hasAnomaly is rdmalab.anomaly.
func hasAnomaly(p *analysis.Packet) bool {
	if p.Analysis.LateAnomaly {
		return true
	}
	for _, n := range p.Analysis.Notes {
		if n.Kind.Anomaly() {
			return true
		}
	}
	return false
}

// AppendValue appends v as tshark -T fields prints a value of f: integers
// in decimal, or 0x and Bits/4 hex digits for Wireshark's hexadecimal
// fields; booleans 1 or 0; times with nine decimals; byte strings as hex
// digits; strings escaped for a terminal.
func (f *FieldDef) AppendValue(b []byte, v dfilter.Value) []byte {
	switch f.Type {
	case dfilter.TypeUint:
		if f.Hex {
			b = append(b, '0', 'x')
			return appendtext.HexFixed(b, v.U, (f.Bits+3)/4)
		}
		return appendtext.Uint(b, v.U)
	case dfilter.TypeBool:
		if v.U != 0 {
			return append(b, '1')
		}
		return append(b, '0')
	case dfilter.TypeFloat:
		if f.Time {
			ns := int64(v.U)
			if ns < 0 {
				b = append(b, '-')
				ns = -ns
			}
			b = appendtext.Uint(b, uint64(ns/1e9))
			return appendtext.UintPad(append(b, '.'), uint64(ns%1e9), 9)
		}
		return strconv.AppendFloat(b, v.F, 'f', -1, 64)
	case dfilter.TypeIPv4, dfilter.TypeIPv6:
		return v.A.AppendTo(b)
	case dfilter.TypeEther:
		for i := 5; i >= 0; i-- {
			b = appendtext.HexFixed(b, v.U>>(8*uint(i))&0xff, 2)
			if i > 0 {
				b = append(b, ':')
			}
		}
		return b
	case dfilter.TypeString:
		return safe.AppendText(b, v.S)
	case dfilter.TypeBytes:
		for i := 0; i < len(v.S); i++ {
			b = appendtext.HexFixed(b, uint64(v.S[i]), 2)
		}
		return b
	}
	return append(b, f.Name...) // a protocol: present
}
