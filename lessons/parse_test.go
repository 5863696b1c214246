package lessons

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

const sample = "---\n" +
	"name: sample\n" +
	"title: A sample\n" +
	"summary: one WRITE\n" +
	"level: beginner\n" +
	"profile: fix2025\n" +
	"settings:\n" +
	"  threads: 1\n" +
	"  post_lock: off\n" +
	"---\n" +
	"# A sample\n" +
	"\n" +
	"The client sends a WRITE.\n" +
	"\n" +
	"```rdmalab\n" +
	"# The client registers the data.\n" +
	"write 10000\n" +
	"expect calls[0].state == sent\n" +
	"expect len(calls) == 1\n" +
	"hint The WRITE is the first call.\n" +
	"complete\n" +
	"expect event svc_rdma_wc_receive\n" +
	"```\n" +
	"\n" +
	"```text\n" +
	"shown as it is\n" +
	"```\n" +
	"\n" +
	"Then the server takes it.\n" +
	"\n" +
	"```rdmalab quiet\n" +
	"recv\n" +
	"expect errno EINVAL from svc_rdma_copy_inline_range\n" +
	"expect byte pg1[4] == 0x41\n" +
	"expect source pg1[4] == \"read chunk 0 seg 0\"\n" +
	"```\n" +
	"\n" +
	"That is all.\n"

func TestParseSample(t *testing.T) {
	l, err := Parse("sample.md", []byte(sample), nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Name != "sample" || l.Title != "A sample" || l.Summary != "one WRITE" || l.Level != "beginner" {
		t.Errorf("front matter: %+v", l)
	}
	want := []Setting{{"profile", "fix2025", 6}, {"threads", "1", 8}, {"post_lock", "off", 9}}
	if fmt.Sprint(l.Settings) != fmt.Sprint(want) {
		t.Errorf("settings %v, want %v", l.Settings, want)
	}
	if len(l.Steps) != 3 {
		t.Fatalf("%d steps, want 3", len(l.Steps))
	}
	s0, s1, s2 := l.Steps[0], l.Steps[1], l.Steps[2]
	if s0.Command != "write 10000" || s0.Line != 17 || s0.Col != 1 {
		t.Errorf("step 0: %q at %d:%d", s0.Command, s0.Line, s0.Col)
	}
	if !strings.Contains(s0.Narration, "The client sends a WRITE.") || !strings.Contains(s0.Narration, "The client registers the data.") {
		t.Errorf("step 0 narration %q", s0.Narration)
	}
	if len(s0.Checks) != 2 || s0.Checks[0].Kind != ExpectState || s0.Checks[0].Path.String() != "calls[0].state" ||
		s0.Checks[0].Value.Str != "sent" || !s0.Checks[1].Len || s0.Hint != "The WRITE is the first call." {
		t.Errorf("step 0 checks %+v hint %q", s0.Checks, s0.Hint)
	}
	if s0.Checks[0].Pos != (Pos{"sample.md", 18, 8}) {
		t.Errorf("check position %v", s0.Checks[0].Pos)
	}
	if s1.Narration != "" || s1.Checks[0].Kind != ExpectEvent || s1.Checks[0].Func != "svc_rdma_wc_receive" || s1.Quiet {
		t.Errorf("step 1: %+v", s1)
	}
	if !strings.Contains(s2.Narration, "shown as it is") || !strings.Contains(s2.Narration, "Then the server takes it.") || !s2.Quiet {
		t.Errorf("step 2 narration %q quiet %v", s2.Narration, s2.Quiet)
	}
	c := s2.Checks
	if c[0].Kind != ExpectErrno || c[0].Word != "EINVAL" || c[0].Func != "svc_rdma_copy_inline_range" ||
		c[1].Kind != ExpectByte || c[1].Page != "pg1" || c[1].Off != 4 || c[1].Value.Num.Int64() != 0x41 ||
		c[2].Kind != ExpectSource || c[2].Value.Str != "read chunk 0 seg 0" {
		t.Errorf("step 2 checks %+v", c)
	}
	if l.Outro != "That is all." {
		t.Errorf("outro %q", l.Outro)
	}
}

func TestParseErrorsNameLineAndColumn(t *testing.T) {
	front := "---\nname: x\ntitle: X\nsummary: s\nlevel: beginner\n---\n"
	for _, c := range []struct {
		name, text, want string
	}{
		{"no front matter", "```rdmalab\nwrite 1\n```\n", "f.md:1:1: a lesson starts with front matter"},
		{"unclosed front matter", "---\nname: x\n", "f.md:2: the front matter has no closing --- line"},
		{"missing key", "---\nname: x\ntitle: X\nlevel: beginner\n---\n```rdmalab\nwrite 1\n```\n", "front matter: summary: is missing"},
		{"bad level", "---\nname: x\ntitle: X\nsummary: s\nlevel: guru\n---\n", "f.md:5:8: level \"guru\""},
		{"unknown key", "---\nname: x\nshell: rm -rf /\n---\n", "f.md:3:1: unknown front matter key \"shell\""},
		{"bad name", "---\nname: ../x\n---\n", "f.md:2:7: name \"../x\""},
		{"bad file", "---\nname: x\nfiles: ../../etc/passwd\n---\n", "f.md:3:8: file \"../../etc/passwd\""},
		{"bad engine", "---\nname: x\nengines: sim mlx5\n---\n", "f.md:3:10: engine \"mlx5\": want sim or ibv"},
		{"no engine", "---\nname: x\nengines:\n---\n", "f.md:3:1: engines: name the engines"},
		{"bad ref", front + "```rdmalab\nwrite 1\nexpect a.b == calls[x.c\n```\n", "f.md:9:15: path \"calls[x.c\""},
		{"no steps", front + "just prose\n", "f.md:7: no ```rdmalab block"},
		{"unclosed block", front + "```rdmalab\nwrite 1\n", "f.md:7:1: this ```rdmalab block is never closed"},
		{"expect first", front + "```rdmalab\n  expect calls\n```\n", "f.md:8:3: expect before any command"},
		{"bad op", front + "```rdmalab\nwrite 1\nexpect calls[0].state ~= sent\n```\n", "f.md:9:23: want a comparison"},
		{"bad path", front + "```rdmalab\nwrite 1\nexpect calls[x.state == 1\n```\n", "f.md:9:8: path \"calls[x.state\""},
		{"len needs op", front + "```rdmalab\nwrite 1\nexpect len(calls)\n```\n", "f.md:9:18: len(...) needs a comparison"},
		{"number op on string", front + "```rdmalab\nwrite 1\nexpect a.b < \"x\"\n```\n", "f.md:9:14: < compares numbers"},
		{"bad byte", front + "```rdmalab\nwrite 1\nexpect byte pg1[4] == 300\n```\n", "f.md:9:23: a byte is 0..255"},
		{"misspelt event", front + "```rdmalab\nwrite 1\nexpect event svc_rdma_sendot\n```\n", "f.md:9:14: no function or trace point of the model is called svc_rdma_sendot (did you mean svc_rdma_sendto?)"},
		{"misspelt no event", front + "```rdmalab\nwrite 1\nexpect no event svcrdma_sq_ful\n```\n", "f.md:9:17: no function or trace point of the model is called svcrdma_sq_ful (did you mean svcrdma_sq_full?)"},
		{"misspelt errno from", front + "```rdmalab\nwrite 1\nexpect errno EINVAL from svc_rdma_post_chunk_ctx\n```\n", "(did you mean svc_rdma_post_chunk_ctxt?)"},
		{"bad errno", front + "```rdmalab\nwrite 1\nexpect errno invalid\n```\n", "f.md:9:14: expect errno NAME"},
		{"block option", front + "```rdmalab loud\nwrite 1\n```\n", "f.md:7:12: unknown block option \"loud\""},
		{"control char", front + "```rdmalab\nwrite 1\x1b[2J\n```\n", "f.md:8:8: control character U+001B"},
		{"long line", front + "```rdmalab\nwrite " + strings.Repeat("1", MaxLineLen) + "\n```\n", "f.md:8: line of 4102 bytes"},
	} {
		_, err := Parse("f.md", []byte(c.text), nil)
		var le *Error
		if !errors.As(err, &le) {
			t.Errorf("%s: got %v, want an *Error", c.name, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %q, want it to contain %q", c.name, err, c.want)
		}
	}
}

// engines: says where a lesson runs; none means everywhere.
func TestParseEngines(t *testing.T) {
	front := "---\nname: x\ntitle: X\nsummary: s\nlevel: beginner\n%s---\n```rdmalab\nwrite 1\n```\n"
	for _, c := range []struct {
		line     string
		sim, ibv bool
	}{{"", true, true}, {"engines: sim\n", true, false}, {"engines: ibv sim ibv\n", true, true}, {"engines: ibv\n", false, true}} {
		l, err := Parse("f.md", fmt.Appendf(nil, front, c.line), nil)
		if err != nil {
			t.Fatal(err)
		}
		if l.RunsOn("sim") != c.sim || l.RunsOn("ibv") != c.ibv {
			t.Errorf("%q: runs on sim %v, ibv %v (engines %q)", c.line, l.RunsOn("sim"), l.RunsOn("ibv"), l.Engines)
		}
	}
}

func TestParseValidatorPlacesTheColumn(t *testing.T) {
	text := "---\nname: x\ntitle: X\nsummary: s\nlevel: beginner\nsettings:\n  threads: 99\n---\n```rdmalab\n  write 10x\n```\n"
	validate := func(cmd string) (int, error) {
		switch cmd {
		case "set threads 99":
			return 13, errors.New("threads: 1..8")
		case "write 10x":
			return 7, errors.New(`size "10x": want a number`)
		}
		return 0, nil
	}
	_, err := Parse("f.md", []byte(text), validate)
	if err == nil || !strings.Contains(err.Error(), "f.md:7: setting threads: threads: 1..8") {
		t.Errorf("settings: %v", err)
	}
	text = strings.Replace(text, "settings:\n  threads: 99\n", "", 1)
	_, err = Parse("f.md", []byte(text), validate)
	if err == nil || err.Error() != `f.md:8:9: size "10x": want a number` {
		t.Errorf("command: %v", err)
	}
}

func TestParseTooBig(t *testing.T) {
	_, err := Parse("big.md", make([]byte, MaxFileSize+1), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "big.md: 1048577 bytes: a lesson file is at most") {
		t.Errorf("got %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("---\nname: a\n---\n```rdmalab\nx\nexpect len(a[0]) >= 0x10\n```\n"))
	f.Add([]byte("---\n---\n~~~~rdmalab quiet\nexpect\n~~~~\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse("f.md", data, nil)
		if err != nil {
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if le.Pos.Line < 0 || le.Pos.Line > strings.Count(string(data), "\n")+1 {
				t.Fatalf("error %v names a line outside the file", err)
			}
			return
		}
		if len(l.Steps) == 0 || len(l.Steps) > MaxSteps {
			t.Fatalf("%d steps", len(l.Steps))
		}
	})
}

func TestPlain(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"# The Send\n\nThe **Send** lands; see [RFC 8166](https://www.rfc-editor.org/rfc/rfc8166) and `show sq`.\n#hashtag stays",
			"The Send\n\nThe Send lands; see RFC 8166 (https://www.rfc-editor.org/rfc/rfc8166) and `show sq`.\n#hashtag stays"},
		{"an *italic* word and _another_ one.", "an italic word and another one."},
		{"bold **over a\nline break** here", "bold over a\nline break here"},
		{"*emphasis over\na line*, then", "emphasis over\na line, then"},
		{"rc_curpage and sc_sq_avail stay", "rc_curpage and sc_sq_avail stay"},
		{"`*not* touched` but *this* is", "`*not* touched` but this is"},
		{"2 * 3 * 4 stays", "2 * 3 * 4 stays"},
	} {
		if got := Plain(c.in); got != c.want {
			t.Errorf("Plain(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
