package repl

import (
	"reflect"
	"testing"
)

func TestTokenize(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"   ", nil, false},
		{"write 1M", []string{"write", "1M"}, false},
		{"  show\tsgl  ", []string{"show", "sgl"}, false},
		{`source "my file.rdl"`, []string{"source", "my file.rdl"}, false},
		{`source 'it''s'`, []string{"source", "its"}, false},
		{`a\ b c`, []string{"a b", "c"}, false},
		{`say "a \"q\""`, []string{"say", `a "q"`}, false},
		{"complete --status=REM_ACCESS_ERR", []string{"complete", "--status=REM_ACCESS_ERR"}, false},
		{"write 4096 # the data", []string{"write", "4096"}, false},
		{"# only a comment", nil, false},
		{"show sgl rw#1", []string{"show", "sgl", "rw#1"}, false},
		{`write "4096`, []string{"write", "4096"}, true},
	} {
		toks, err := Tokenize(tc.line)
		if (err != nil) != tc.err {
			t.Errorf("%q: error %v, want error %v", tc.line, err, tc.err)
		}
		if got := words(toks); !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("%q: %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestTokenPositions(t *testing.T) {
	toks, _ := Tokenize(`show  "a b" c`)
	want := []Token{{"show", 0, 4}, {"a b", 6, 11}, {"c", 12, 13}}
	if !reflect.DeepEqual(toks, want) {
		t.Errorf("%+v, want %+v", toks, want)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"write 1M", `a "b c" 'd'`, `x\`, "# c", `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		toks, _ := Tokenize(line)
		for _, tk := range toks {
			if tk.Start < 0 || tk.End > len(line) || tk.Start > tk.End {
				t.Fatalf("%q: token %+v out of the line", line, tk)
			}
		}
	})
}
