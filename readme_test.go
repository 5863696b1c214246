package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

// shellWords splits a command line as sh would for the README's commands:
// words separated by blanks, single or double quotes keeping blanks.
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// TestREADMECaptureCommands runs every `go run . decode` and `tshark` line
// of the README's code blocks, in order, in a folder where captures/ is
// the repository's: each must succeed (--check: exit 1 for anomalies is
// its answer) and print something.
func TestREADMECaptureCommands(t *testing.T) {
	root := testutil.ModuleRoot(t)
	readme := string(testutil.ReadFile(t, filepath.Join(root, "README.md")))
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "captures"), filepath.Join(dir, "captures")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	ran := 0
	inBlock := false
	for _, line := range strings.Split(readme, "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			continue
		}
		words := shellWords(line)
		switch {
		case len(words) > 3 && words[0] == "go" && words[1] == "run" && words[2] == "." && words[3] == "decode":
			var out, errb bytes.Buffer
			code := run(words[3:], nil, &out, &errb)
			check := strings.Contains(line, "--check")
			if !(code == exitOK || check && code == exitFailed) || out.Len()+errb.Len() == 0 {
				t.Errorf("README: %s\nexit %d\n%s", line, code, errb.String())
			}
			ran++
		case len(words) > 1 && words[0] == "tshark":
			cmd := exec.Command(testutil.Tshark(t), words[1:]...)
			out, err := cmd.Output()
			if err != nil || len(out) == 0 {
				t.Errorf("README: %s\n%v: %s", line, err, out)
			}
			ran++
		}
	}
	if ran < 10 {
		t.Errorf("ran %d of the README's commands: the test no longer finds them", ran)
	}
}
