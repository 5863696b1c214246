package nfs

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rdmalab/rdmalab/proto/safe"
	"github.com/rdmalab/rdmalab/proto/xdr"
)

// evil is a file name that would clear a terminal, forge a line, make the
// terminal answer, reverse the line, and is not UTF-8 at the end.
const evil = "\x1b[2J\r\nforged\x1b[6n\u202e\u009b\xff\\"

// terminalUnsafe returns the first rune of s a terminal would act on, or
// -1: control characters, DEL, C1 controls, bidirectional overrides, or
// bytes that are not UTF-8 (as U+FFFD).
func terminalUnsafe(s string) rune {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return r
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return r
		}
	}
	return -1
}

// nameCase is a call or reply that carries a name, with the Wireshark
// fields Fields reports it under.
type nameCase struct {
	what             string
	vers, proc       uint32
	reply            bool
	body             []byte
	fields           []string
	summaryHasEscape bool // the summary shows the name
}

// nameCases are the calls and replies that carry name.
func nameCases(name string) []nameCase {
	dirop := func(w *xdr.Writer) { w.OpaqueVar(root); w.String(name) }
	noSattr := func(w *xdr.Writer) {
		for range 4 {
			w.Bool(false) // mode, uid, gid, size not set
		}
		w.Uint32(0) // atime, mtime: DONT_CHANGE
		w.Uint32(0)
	}
	v4call := func(ops func(b *b4)) []byte {
		var b b4
		b.opaque(name).u32(1, 2)
		b.u32(uint32(Op4PutFH)).opaque(string(root))
		ops(&b)
		return b.Bytes()
	}
	return []nameCase{
		{"LOOKUP", 3, 3, false, body(dirop), []string{"nfs.name"}, true},
		{"REMOVE", 3, 12, false, body(dirop), []string{"nfs.name"}, true},
		{"CREATE", 3, 8, false, body(func(w *xdr.Writer) { dirop(w); w.Uint32(0); noSattr(w) }), []string{"nfs.name"}, true},
		{"MKNOD", 3, 11, false, body(func(w *xdr.Writer) { dirop(w); w.Uint32(6); noSattr(w) }), []string{"nfs.name"}, true},
		{"SYMLINK", 3, 10, false, body(func(w *xdr.Writer) { dirop(w); noSattr(w); w.String(name) }),
			[]string{"nfs.name", "nfs.symlink.to"}, true},
		{"RENAME", 3, 14, false, body(func(w *xdr.Writer) { dirop(w); dirop(w) }), []string{"nfs.name", "nfs.name"}, true},
		{"LINK", 3, 15, false, body(func(w *xdr.Writer) { w.OpaqueVar(root); dirop(w) }), []string{"nfs.name"}, true},
		{"READLINK reply", 3, 5, true, body(func(w *xdr.Writer) { w.Uint32(0); w.Bool(false); w.String(name) }),
			[]string{"nfs.readlink.data"}, true},
		{"READDIR reply", 3, 16, true, (&ReadDir3Res{Status: NFS3OK, Entries: []Entry3{{1, name, 1}}}).AppendTo(nil),
			[]string{"nfs.readdir.entry3.name"}, true},
		{"READDIRPLUS reply", 3, 17, true, (&ReadDirPlus3Res{Status: NFS3OK, Entries: []EntryPlus3{{Name: name}}}).AppendTo(nil),
			[]string{"nfs.readdirplus.entry.name"}, true},
		{"V4 LOOKUP", 4, 1, false, v4call(func(b *b4) { b.u32(uint32(Op4Lookup)).opaque(name) }),
			[]string{"nfs.tag", "nfs.pathname.component"}, true},
		{"V4 OPEN", 4, 1, false, v4call(func(b *b4) {
			b.u32(uint32(Op4Open)).u32(0, 1, 0).u64(1).opaque("o").u32(0).u32(0).opaque(name)
		}), []string{"nfs.tag", "nfs.pathname.component"}, true},
		{"V4 CREATE symlink", 4, 1, false, v4call(func(b *b4) {
			b.u32(uint32(Op4Create)).u32(5).opaque(name).opaque(name).u32(0).opaque("")
		}), []string{"nfs.tag", "nfs.symlink.linktext", "nfs.pathname.component"}, true},
		{"V4 REMOVE", 4, 1, false, v4call(func(b *b4) { b.u32(uint32(Op4Remove)).opaque(name) }),
			[]string{"nfs.tag", "nfs.pathname.component"}, true},
		{"V4 RENAME", 4, 1, false, v4call(func(b *b4) { b.u32(uint32(Op4Rename)).opaque(name).opaque(name) }),
			[]string{"nfs.tag", "nfs.pathname.component", "nfs.pathname.component"}, false},
		{"V4 READLINK reply", 4, 1, true, func() []byte {
			var b b4
			b.u32(0).opaque(name).u32(1, uint32(Op4ReadLink), 0).opaque(name)
			return b.Bytes()
		}(), []string{"nfs.tag", "nfs.symlink.linktext"}, false},
		{"V4 READDIR reply", 4, 1, true, func() []byte {
			var b b4
			b.u32(0).opaque("").u32(1, uint32(Op4ReadDir), 0).u64(0)
			b.u32(1).u64(1).opaque(name).u32(0).opaque("") // one entry, no attributes
			b.u32(0, 1)                                    // no more, eof
			return b.Bytes()
		}(), []string{"nfs.tag", "nfs.name", "nfs.entry_name"}, false}, // its tag is empty, and there
	}
}

// TestSummaryEscapesNames summarises every call and reply that shows a
// name: the summary holds nothing a terminal acts on and shows the name
// escaped, and Fields reports the exact name under Wireshark's fields.
func TestSummaryEscapesNames(t *testing.T) {
	for _, tc := range nameCases(evil) {
		sum, get := SummarizeCall, CallFields
		if tc.reply {
			sum, get = SummarizeReply, ReplyFields
		}
		s := sum(ProgNFS, tc.vers, tc.proc, tc.body)
		if r := terminalUnsafe(s); r >= 0 {
			t.Errorf("%s: summary %q holds %U", tc.what, s, r)
		}
		if strings.Contains(s, "Malformed") || tc.summaryHasEscape != strings.Contains(s, safe.Text(evil)) {
			t.Errorf("%s: summary %q (escaped name expected: %v)", tc.what, s, tc.summaryHasEscape)
		}
		f, _ := get(ProgNFS, tc.vers, tc.proc, tc.body)
		var fields []string
		for _, sf := range f.Strings {
			fields = append(fields, sf.Field)
			if sf.Value != evil && !(sf.Field == "nfs.tag" && sf.Value == "") {
				t.Errorf("%s: %s = %q, want the exact name", tc.what, sf.Field, sf.Value)
			}
		}
		if !reflect.DeepEqual(fields, tc.fields) {
			t.Errorf("%s: fields %v, want %v", tc.what, fields, tc.fields)
		}
	}
}

// TestSummaryCleanNamesUnchanged: a printable name, non-ASCII letters
// included, shows as itself.
func TestSummaryCleanNamesUnchanged(t *testing.T) {
	const name = "résumé-ファイル.txt"
	for _, tc := range nameCases(name) {
		sum := SummarizeCall
		if tc.reply {
			sum = SummarizeReply
		}
		if s := sum(ProgNFS, tc.vers, tc.proc, tc.body); tc.summaryHasEscape && !strings.Contains(s, "/"+name) && !strings.HasSuffix(s, " "+name) {
			t.Errorf("%s: %q lacks %q", tc.what, s, name)
		}
	}
}

// FuzzSummaryEscaped summarises any input as every NFSv3 procedure and as
// an NFSv4 COMPOUND, call and reply: a summary never holds anything a
// terminal acts on, whatever the names in the input.
func FuzzSummaryEscaped(f *testing.F) {
	for _, tc := range nameCases(evil) {
		f.Add(uint8(tc.proc), tc.body)
	}
	f.Fuzz(func(t *testing.T, proc uint8, in []byte) {
		for _, vers := range []uint32{3, 4} {
			for _, s := range []string{
				SummarizeCall(ProgNFS, vers, uint32(proc%23), in),
				SummarizeReply(ProgNFS, vers, uint32(proc%23), in),
			} {
				if r := terminalUnsafe(s); r >= 0 {
					t.Fatalf("summary %q holds %U", s, r)
				}
			}
		}
	})
}

// TestWriteFuzzSeeds writes the hostile names as seeds of the fuzz
// corpora (RDMALAB_WRITE_SEEDS=1; the files are committed).
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("RDMALAB_WRITE_SEEDS") != "1" {
		t.Skip("RDMALAB_WRITE_SEEDS=1 writes the seeds")
	}
	for _, target := range []string{"FuzzSummarize", "FuzzFields", "FuzzSummaryEscaped"} {
		for _, tc := range nameCases(evil) {
			name := "escape-" + strings.ToLower(strings.ReplaceAll(tc.what, " ", "-"))
			data := fmt.Sprintf("go test fuzz v1\nbyte(%q)\n[]byte(%q)\n", byte(tc.proc), tc.body)
			if err := os.WriteFile(filepath.Join("testdata", "fuzz", target, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
