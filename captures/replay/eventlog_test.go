package replay

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/rdmalab/rdmalab/engine/trace"
)

// The log gives back what it was given, across and inside compressed
// blocks, from several readers at once.
func TestEventLog(t *testing.T) {
	l := newEventLog()
	var want []trace.Event
	for i := range 3*logBlock + 17 {
		e := trace.Event{Seq: uint64(i + 1), Task: []string{taskWire, taskCQ, taskNfsd}[i%3], Kind: trace.Kind(i % 4),
			Func: fmt.Sprintf("fn%d", i%7), Depth: i % 3, Text: fmt.Sprintf("text %d ✓", i)}
		if i%5 == 0 {
			e.Args = trace.Fmt("frame", i, "psn", i*3)
		}
		if i%11 == 0 {
			e.Err = "bad"
		}
		l.add(e)
		want = append(want, e)
	}
	if l.Len() != len(want) || len(l.sealed) != 3 {
		t.Fatalf("%d events in %d sealed blocks, want %d in 3", l.Len(), len(l.sealed), len(want))
	}
	var wg sync.WaitGroup
	for _, r := range [][2]int{{0, len(want)}, {logBlock - 3, logBlock + 3}, {2*logBlock + 1, 3*logBlock + 10}, {5, 6}, {7, 7}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				got := l.slice(r[0], r[1])
				if len(got) == 0 && r[0] == r[1] {
					continue
				}
				if !reflect.DeepEqual(got, want[r[0]:r[1]]) {
					t.Errorf("events [%d, %d) do not read back", r[0], r[1])
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := l.at(logBlock); !reflect.DeepEqual(got, want[logBlock]) {
		t.Errorf("event %d: %+v, want %+v", logBlock, got, want[logBlock])
	}
}

// A block that does not read back becomes events that say so, not a crash.
func TestEventLogDamaged(t *testing.T) {
	l := newEventLog()
	for i := range logBlock {
		l.add(trace.Event{Seq: uint64(i + 1), Func: "f"})
	}
	l.sealed[0].mem = l.sealed[0].mem[:len(l.sealed[0].mem)/2]
	got := l.slice(0, logBlock)
	if len(got) != logBlock || got[logBlock-1].Func != "lost" || got[logBlock-1].Err == "" {
		t.Fatalf("a damaged block reads as %d events, the last %+v", len(got), got[len(got)-1])
	}
}
