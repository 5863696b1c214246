package nfs

import (
	"strings"
	"testing"
	"unicode"
)

// TestCallTreeWrite: an NFSv3 WRITE call's tree names the handle with its
// bytes, then the offset, count and stable_how with theirs.
func TestCallTreeWrite(t *testing.T) {
	lines := CallTree(ProgNFS, 3, uint32(Proc3Write), write86)
	var texts []string
	for _, l := range lines {
		texts = append(texts, l.Text)
		if l.Start < 0 || l.End <= l.Start || l.End > len(write86) {
			t.Errorf("%q shows [%d,%d) of %d bytes", l.Text, l.Start, l.End, len(write86))
		}
	}
	got := strings.Join(texts, "\n")
	for _, want := range []string{"object (length: ", "FileHandle: ", "Offset: ", "Count: ", "Stable: FILE_SYNC"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}

// FuzzCallTree: whatever the body, every line's bytes lie inside it and
// its text holds no control character.
func FuzzCallTree(f *testing.F) {
	f.Add(uint32(ProgNFS), uint32(3), uint32(Proc3Write), write86)
	f.Add(uint32(progNFSACL), uint32(3), uint32(1), []byte{0, 0, 0, 8, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 12})
	f.Add(uint32(ProgNFS), uint32(3), uint32(Proc3Rename), []byte{0, 0, 0, 4, 1, 2, 3, 4, 0, 0, 0, 1, 'a', 0, 0, 0})
	f.Add(uint32(ProgNFS), uint32(4), uint32(1), []byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 22, 0, 0, 0, 4, 9, 9, 9, 9})
	f.Fuzz(func(t *testing.T, prog, vers, proc uint32, body []byte) {
		for _, l := range CallTree(prog, vers, proc, body) {
			if l.Start < 0 || l.End < l.Start || l.End > len(body) {
				t.Fatalf("%q shows [%d,%d) of %d bytes", l.Text, l.Start, l.End, len(body))
			}
			if strings.IndexFunc(l.Text, unicode.IsControl) >= 0 {
				t.Fatalf("control character in %q", l.Text)
			}
		}
	})
}
