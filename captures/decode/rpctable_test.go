package decode

import (
	"fmt"
	"strings"
	"testing"
)

func TestTableSummary(t *testing.T) {
	short := "V3 READ Reply Len: 6"
	if got := tableSummary(short); got != short {
		t.Errorf("short summary changed: %q", got)
	}
	var names []string
	for i := range 150 {
		names = append(names, "file-"+strings.Repeat("x", i%3)+".txt")
	}
	long := "V3 READDIR Reply data " + strings.Join(names, " ")
	got := tableSummary(long)
	if len(got) > maxTableSummary+20 || !strings.HasPrefix(got, "V3 READDIR Reply data file-") {
		t.Fatalf("long summary not cut: %q", got)
	}
	kept := len(strings.Fields(strings.SplitN(got, " … ", 2)[0]))
	var more int
	if _, err := fmt.Sscanf(got[strings.Index(got, "(+"):], "(+%d more)", &more); err != nil {
		t.Fatalf("no count of left-out words in %q: %v", got, err)
	}
	if kept+more != len(strings.Fields(long)) {
		t.Errorf("kept %d + left out %d != %d words", kept, more, len(strings.Fields(long)))
	}
}
