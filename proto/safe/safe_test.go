package safe

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"README.md", "README.md"},
		{"résumé 文件", "résumé 文件"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"\x1b[6n", `\x1b[6n`},
		{"line\r\nforged 1 0.0 SEND", `line\r\nforged 1 0.0 SEND`},
		{"tab\there", `tab\there`},
		{"bell\a\b\v\f", `bell\a\b\v\f`},
		{`back\slash`, `back\\slash`},
		{"del\x7f", `del\x7f`},
		{"nul\x00", `nul\x00`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
		{"c1 \u009b2J", `c1 \u009b2J`},
		{"evil\u202egnp.exe", `evil\u202egnp.exe`},
		{"iso\u2066x\u2069", `iso\u2066x\u2069`},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := string(AppendText([]byte("p:"), c.in)); got != "p:"+c.want {
			t.Errorf("AppendText(%q) = %q, want %q", c.in, got, "p:"+c.want)
		}
		if got := Bytes([]byte(c.in)); got != c.want {
			t.Errorf("Bytes(%q) = %q, want %q", c.in, got, c.want)
		}
		if IsSafe(c.in) != (c.in == c.want) {
			t.Errorf("IsSafe(%q) = %v", c.in, IsSafe(c.in))
		}
	}
}

func TestTextNoAllocWhenClean(t *testing.T) {
	s := "export/home/user/file-0001.dat"
	if n := testing.AllocsPerRun(100, func() { _ = Text(s) }); n != 0 {
		t.Errorf("Text on a clean string allocated %v times", n)
	}
}

// unescape reverses Text, for the round-trip check.
func unescape(t *testing.T, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'x':
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				t.Fatalf("bad \\x in %q", s)
			}
			b.WriteByte(byte(v))
			i += 2
		case 'u':
			v, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				t.Fatalf("bad \\u in %q", s)
			}
			b.WriteRune(rune(v))
			i += 4
		default:
			c, ok := map[byte]byte{'a': '\a', 'b': '\b', 't': '\t', 'n': '\n', 'v': '\v', 'f': '\f', 'r': '\r', '\\': '\\'}[s[i]]
			if !ok {
				t.Fatalf("unknown escape \\%c in %q", s[i], s)
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"plain", "\x1b]0;title\a", "a\r\nb", "\xff\xfe", "\u202e", "\\x1b", "é\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Text(in)
		if !utf8.ValidString(out) {
			t.Fatalf("Text(%q) = %q is not UTF-8", in, out)
		}
		for _, r := range out {
			if r < 0x20 || r == 0x7f || unsafeRune(r) {
				t.Fatalf("Text(%q) = %q keeps %U", in, out, r)
			}
		}
		if back := unescape(t, out); back != in {
			t.Fatalf("Text(%q) = %q reads back as %q", in, out, back)
		}
		if IsSafe(in) != (out == in) {
			t.Fatalf("IsSafe(%q) = %v but Text gives %q", in, IsSafe(in), out)
		}
	})
}

func TestDisplayLeavesBackslashes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{`DH: 0x1234/a\x1b[2J`, `DH: 0x1234/a\x1b[2J`}, // already escaped: as it is
		{`back\slash`, `back\slash`},
		{"raw\x1b[2J\\x1b", `raw\x1b[2J\x1b`},
		{"a\r\nb\u202e", `a\r\nb\u202e`},
		{"bad\xff", `bad\xff`},
	} {
		if got := Display(c.in); got != c.want {
			t.Errorf("Display(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := string(AppendDisplay([]byte("p:"), c.in)); got != "p:"+c.want {
			t.Errorf("AppendDisplay(%q) = %q", c.in, got)
		}
		if IsDisplayable(c.in) != (c.in == c.want) {
			t.Errorf("IsDisplayable(%q) = %v", c.in, IsDisplayable(c.in))
		}
	}
	// Display of Text is Text: an escaped string is never escaped twice.
	for _, s := range []string{"a\x1b[2J", `x\y`, "\r\n\u009b"} {
		if e := Text(s); Display(e) != e {
			t.Errorf("Display(Text(%q)) = %q, want %q", s, Display(e), e)
		}
	}
}

func FuzzDisplay(f *testing.F) {
	for _, s := range []string{"plain", "\x1b]0;t\a", `a\x1b`, "\xff", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Display(in)
		if !utf8.ValidString(out) {
			t.Fatalf("Display(%q) = %q is not UTF-8", in, out)
		}
		for _, r := range out {
			if r < 0x20 || r == 0x7f || unsafeRune(r) {
				t.Fatalf("Display(%q) = %q keeps %U", in, out, r)
			}
		}
		if Display(out) != out {
			t.Fatalf("Display is not idempotent on %q", in)
		}
	})
}

// What a user typed comes back as typed unless something in it would act
// on a terminal; then all of it is escaped, backslashes too, so that the
// escaped form cannot be mistaken for what was typed.
func TestTyped(t *testing.T) {
	for in, want := range map[string]string{
		"notes.md":      "notes.md",
		`dir\file	x`:    `dir\file	x`,
		"a\x1b[2Jb":     `a\x1b[2Jb`,
		"c:\\x\x07":     `c:\\x\a`,
		"naïve ünïcode": "naïve ünïcode",
	} {
		if got := Typed(in); got != want {
			t.Errorf("Typed(%q) = %q, want %q", in, got, want)
		}
	}
}
