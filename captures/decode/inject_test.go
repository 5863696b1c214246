package decode

// Terminal injection (issue 9): file names, link targets, NFSv4 tags and
// AUTH_SYS machine names are whatever the sender put on the wire. Every
// text output escapes them; --json carries them exactly.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rdmalab/rdmalab/captures/decode/internal/craft"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
	"github.com/rdmalab/rdmalab/proto/xdr"
)

// evil clears the screen, forges an output line, asks the terminal to
// answer (ESC[6n), reverses the rest of the line (U+202E), sends a C1
// CSI (U+009B), and ends with bytes that are not UTF-8 and a backslash.
const evil = "\x1b[2J\r\n  666 0.000000 forged line\x1b[6n\u202eevil\u009b\xff\xfe\\"

// evilEscaped is evil as package safe prints it.
const evilEscaped = `\x1b[2J\r\n  666 0.000000 forged line\x1b[6n\u202eevil\u009b\xff\xfe\\`

// injectionCapture builds NFS traffic that carries evil everywhere a
// string goes: an AUTH_SYS machine name, NFSv3 LOOKUP, SYMLINK, RENAME,
// READLINK and READDIRPLUS names, an NFSv4 COMPOUND tag, LOOKUP and
// READDIR entry names, and a call left unanswered (--check names it).
func injectionCapture(t *testing.T) string {
	c := &craft.Conv{T: t}
	dir := []byte{1, 2, 3, 4}
	xid := uint32(0xe0000000)
	call := func(vers, proc uint32, args []byte) uint32 {
		xid++
		c.ClientSend(craft.RPCRDMAMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}, craft.NFSCall(xid, vers, proc, evil, args)))
		return xid
	}
	reply := func(x uint32, res []byte) {
		c.ServerSend(craft.RPCRDMAMsg(rpcrdma.Header{XID: x, Proc: rpcrdma.ProcMsg}, craft.NFSReply(x, res)))
	}
	diropargs := func(w *xdr.Writer) { w.OpaqueVar(dir); w.String(evil) }
	noAttr := func(w *xdr.Writer) { w.Bool(false) }

	x := call(3, uint32(nfs.Proc3Lookup), craft.XDROf(diropargs))
	reply(x, craft.XDROf(func(w *xdr.Writer) { w.Uint32(2); noAttr(w) })) // NFS3ERR_NOENT
	x = call(3, uint32(nfs.Proc3Symlink), craft.XDROf(func(w *xdr.Writer) {
		diropargs(w)
		for range 4 {
			w.Bool(false) // sattr3: mode, uid, gid, size not set
		}
		w.Uint32(0) // atime: DONT_CHANGE
		w.Uint32(0) // mtime
		w.String(evil)
	}))
	reply(x, craft.XDROf(func(w *xdr.Writer) { w.Uint32(13); noAttr(w); noAttr(w) })) // NFS3ERR_ACCES, wcc_data
	x = call(3, uint32(nfs.Proc3Rename), craft.XDROf(func(w *xdr.Writer) { diropargs(w); diropargs(w) }))
	reply(x, craft.XDROf(func(w *xdr.Writer) { w.Uint32(13); noAttr(w); noAttr(w); noAttr(w); noAttr(w) }))
	x = call(3, uint32(nfs.Proc3ReadLink), craft.XDROf(func(w *xdr.Writer) { w.OpaqueVar(dir) }))
	reply(x, craft.XDROf(func(w *xdr.Writer) { w.Uint32(0); noAttr(w); w.String(evil) }))
	x = call(3, uint32(nfs.Proc3ReadDirPlus), (&nfs.ReadDirPlus3Args{Dir: dir, DirCount: 512, MaxCount: 4096}).AppendTo(nil))
	reply(x, (&nfs.ReadDirPlus3Res{Status: nfs.NFS3OK, Entries: []nfs.EntryPlus3{
		{FileID: 1, Name: "plain", Cookie: 1}, {FileID: 2, Name: evil, Cookie: 2}}, EOF: true}).AppendTo(nil))

	x = call(4, 1, craft.XDROf(func(w *xdr.Writer) {
		w.String(evil) // tag
		w.Uint32(0)    // minor version
		w.Uint32(3)
		w.Uint32(uint32(nfs.Op4PutFH))
		w.OpaqueVar(dir)
		w.Uint32(uint32(nfs.Op4Lookup))
		w.String(evil)
		w.Uint32(uint32(nfs.Op4ReadDir))
		w.Uint64(0)                    // cookie
		w.OpaqueFixed(make([]byte, 8)) // cookieverf
		w.Uint32(512)                  // dircount
		w.Uint32(4096)                 // maxcount
		w.Uint32(0)                    // attr_request: empty bitmap
	}))
	reply(x, craft.XDROf(func(w *xdr.Writer) {
		w.Uint32(0)
		w.String(evil)
		w.Uint32(3)
		for _, op := range []nfs.Op4{nfs.Op4PutFH, nfs.Op4Lookup} {
			w.Uint32(uint32(op))
			w.Uint32(0)
		}
		w.Uint32(uint32(nfs.Op4ReadDir))
		w.Uint32(0)
		w.OpaqueFixed(make([]byte, 8)) // cookieverf
		w.Bool(true)                   // an entry
		w.Uint64(1)                    // cookie
		w.String(evil)
		w.Uint32(0) // attrmask: empty
		w.Uint32(0) // attr_vals: none
		w.Bool(false)
		w.Bool(true) // eof
	}))

	call(3, uint32(nfs.Proc3Mkdir), craft.XDROf(func(w *xdr.Writer) {
		diropargs(w)
		for range 4 {
			w.Bool(false)
		}
		w.Uint32(0)
		w.Uint32(0)
	})) // never answered
	return c.Write(t, "inject-names.pcap")
}

// checkTerminalSafe fails when out holds anything a terminal acts on:
// a control byte other than the newlines that end lines, DEL, a C1
// control, a bidirectional override, or bytes that are not UTF-8.
func checkTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: output is not UTF-8", what)
	}
	for i, r := range out {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			line := strings.Count(out[:i], "\n") + 1
			t.Errorf("%s: line %d: raw %U in %q", what, line, r, strings.Split(out, "\n")[line-1])
			return
		}
	}
}

// TestNamesEscaped decodes the injection capture in every text mode: no
// output holds a raw control character or override, and the escaped name
// shows where the summaries name it.
func TestNamesEscaped(t *testing.T) {
	path := injectionCapture(t)
	for _, tc := range []struct {
		mode Output
		want []string // lines that must be there, with the name escaped
	}{
		{Output{}, []string{
			"V3 LOOKUP Call, DH: 0xb63cfbcd/" + evilEscaped,
			"V3 SYMLINK Call, From DH: 0xb63cfbcd/" + evilEscaped + " To " + evilEscaped,
			"V3 RENAME Call, From DH: 0xb63cfbcd/" + evilEscaped + " To DH: 0xb63cfbcd/" + evilEscaped,
			"V3 READLINK Reply Path: " + evilEscaped,
			"V3 READDIRPLUS Reply plain " + evilEscaped,
			"V4 Call LOOKUP DH: 0xb63cfbcd/" + evilEscaped,
		}},
		{Output{Tree: true}, []string{"    V3 LOOKUP Call, DH: 0xb63cfbcd/" + evilEscaped + "\n"}},
		{Output{RPCs: true}, []string{"V3 READLINK Reply Path: " + evilEscaped + "  [RDMA_MSG"}},
		{Output{Check: true}, []string{"(V3 MKDIR Call, DH: 0xb63cfbcd/" + evilEscaped + ") has no reply in the capture"}},
	} {
		_, out, err := writeFile(path, tc.mode)
		if err != nil {
			t.Errorf("%+v: %v", tc.mode, err)
		}
		checkTerminalSafe(t, fmt.Sprintf("%+v", tc.mode), out)
		if tc.mode == (Output{}) {
			checkPacketLines(t, out) // the forged line stays inside its packet's
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%+v: output lacks %q:\n%s", tc.mode, w, out)
			}
		}
	}
}

// TestNamesExactInJSON checks --json: valid JSON free of anything a
// terminal acts on, that decodes to the strings the wire carried under
// Wireshark's field names (bytes that are not UTF-8 become U+FFFD, one
// each, as encoding/json makes them).
func TestNamesExactInJSON(t *testing.T) {
	path := injectionCapture(t)
	exact := string([]rune(evil))
	_, out, err := writeFile(path, Output{JSON: true})
	if err != nil {
		t.Fatalf("--json: %v", err)
	}
	checkTerminalSafe(t, "--json", out)
	seen := map[string]int{}
	for i, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for k, v := range m {
			switch v := v.(type) {
			case string:
				if v == exact {
					seen[k]++
				}
			case []any:
				for _, e := range v {
					if e == exact {
						seen[k]++
					}
				}
			}
		}
	}
	want := map[string]int{
		"rpc.auth.machinename":       7, // every call
		"nfs.name":                   6, // LOOKUP, SYMLINK, RENAME ×2, MKDIR; the NFSv4 READDIR entry
		"nfs.symlink.to":             1,
		"nfs.readlink.data":          1,
		"nfs.readdirplus.entry.name": 1,
		"nfs.tag":                    2,
		"nfs.pathname.component":     1,
		"nfs.entry_name":             1,
	}
	for k, n := range want {
		if seen[k] != n {
			t.Errorf("%s carries the exact name %d times, want %d (all: %v)", k, seen[k], n, seen)
		}
	}
}
