package decode

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
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

// --rpc streams: each RPC is printed once it and those before it are
// settled, long before the end of the capture, and the whole table is
// the one an analysis that keeps every RPC prints at the end.
func TestRPCTableStreams(t *testing.T) {
	for _, name := range []string{"nfs3-rdma.pcap", "nfs4.1-rdma.pcap", "sim-nfs3.pcap"} {
		path := testutil.Capture(t, name)
		var want bytes.Buffer
		an, err := ReadFile(path, func(*Packet) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if err := writeRPCTable(&want, an.RPCs()); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		out := bufio.NewWriterSize(&got, 16) // bufio's smallest: what is printed shows at once
		rs := rpcStream{out: out, next: 1, pending: map[int]*RPC{}}
		firstAt, frames := 0, 0
		an, err = ReadFileWith(path, Options{DropRPCs: true, DropChunkData: true}, func(p *Packet) error {
			frames = p.Frame
			err := rs.packet(p)
			if firstAt == 0 && got.Len() > 0 {
				firstAt = p.Frame
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := rs.finish(an.RPCs()); err != nil {
			t.Fatal(err)
		}
		out.Flush()
		if got.String() != want.String() {
			t.Errorf("%s: streamed table differs:\n%s\nwant\n%s", name, got.String(), want.String())
		}
		if firstAt == 0 || firstAt > frames/2 {
			t.Errorf("%s: the first RPC was printed at frame %d of %d", name, firstAt, frames)
		}
	}
}
