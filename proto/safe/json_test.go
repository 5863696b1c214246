package safe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// rawUnsafe is the first rune of b a terminal would act on, or -1.
func rawUnsafe(b []byte) int {
	for i, r := range string(b) {
		if r < 0x20 && r != '\n' || r == 0x7f || unsafeRune(r) || r == utf8.RuneError && !bytes.HasPrefix(b[i:], []byte("\ufffd")) {
			return i
		}
	}
	return -1
}

var jsonCases = []string{
	"", "plain", "ü · 日本", "quote\" back\\slash",
	"C0 \x00\x01\x1b[2J\r\n\t\a", "DEL \x7f", "C1 \u0080\u0085\u009b2J\u009f",
	"bidi \u202a\u202b\u202c\u202d\u202e", "isolates \u2066\u2067\u2068\u2069", "marks \u200e\u200f\u061c",
	"separators \u2028\u2029", "astral \U0001F600", "<html>&amp;",
}

// Every JSON writer's strings: valid JSON, nothing raw a terminal acts
// on, and decoded exactly the string written (invalid UTF-8 as U+FFFD, as
// encoding/json decodes it).
func TestJSONEscapesAndRoundTrips(t *testing.T) {
	for _, s := range append(jsonCases, "bad \xff\xfe byte", "cut \xe2\x80") {
		checkJSONString(t, s)
	}
	// Structure, indentation and numbers pass JSON untouched.
	v := map[string]any{"a": []any{1, "x\u202ey", 2.5}, "b": map[string]string{"\u009b": "\x7f"}}
	b, err := MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := json.MarshalIndent(v, "", "  ")
	if i := rawUnsafe(b); i >= 0 {
		t.Errorf("MarshalIndent: raw at %d: %s", i, b)
	}
	var back any
	if err := json.Unmarshal(b, &back); err != nil || !jsonEqual(back, v) {
		t.Errorf("MarshalIndent: %s decodes to %v (%v)", b, back, err)
	}
	if n := strings.Count(string(b), "\n"); n != strings.Count(string(plain), "\n") {
		t.Errorf("MarshalIndent: %d lines, encoding/json wrote %d", n, strings.Count(string(plain), "\n"))
	}
	if s := []byte(`{"a":[1,"plain"]}`); &JSON(s)[0] != &s[0] {
		t.Error("JSON copied a text that needs no escaping")
	}
	// The encoder: each value whole, under the rule.
	var out bytes.Buffer
	enc := NewJSONEncoder(&out)
	for _, s := range jsonCases {
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
	}
	if i := rawUnsafe(out.Bytes()); i >= 0 {
		t.Errorf("NewJSONEncoder: raw at %d: %q", i, out.Bytes())
	}
	dec := json.NewDecoder(&out)
	for _, want := range jsonCases {
		var got string
		if err := dec.Decode(&got); err != nil || got != want {
			t.Errorf("NewJSONEncoder: %q came back as %q (%v)", want, got, err)
		}
	}
}

func checkJSONString(t *testing.T, s string) {
	t.Helper()
	var w strings.Builder
	for _, r := range s { // each bad byte its own U+FFFD, as encoding/json has it
		w.WriteRune(r)
	}
	want := w.String()
	std, _ := json.Marshal(s)
	for name, b := range map[string][]byte{"AppendJSON": AppendJSON(nil, s), "JSON": JSON(std)} {
		if !json.Valid(b) {
			t.Fatalf("%s(%q) = %s: not JSON", name, s, b)
		}
		if i := rawUnsafe(b); i >= 0 {
			t.Errorf("%s(%q) = %q: raw at byte %d", name, s, b, i)
		}
		var got string
		if err := json.Unmarshal(b, &got); err != nil || got != want {
			t.Errorf("%s(%q) = %s decodes to %q (%v), want %q", name, s, b, got, err, want)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func FuzzJSON(f *testing.F) {
	for _, s := range jsonCases {
		f.Add(s)
	}
	f.Add("bad \xff\xfe byte")
	f.Fuzz(func(t *testing.T, s string) {
		checkJSONString(t, s)
	})
}
