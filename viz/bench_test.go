package viz

import (
	"fmt"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rdmalab/rdmalab/engine"
)

// busyLab is a session that has run long enough to have 10 000 events,
// and ends with a 3-segment Read chunk posted.
func busyLab(b *testing.B) *engine.Lab {
	l := newLab(b, nil)
	for len(l.History()) < 10_000 {
		must[any](b)(l.Write(10000, engine.ChunkOpts{Segments: 3}))
		for i := 0; i < 100; i++ {
			l.Continue()
			if _, err := l.Complete(-1, nil); err != nil {
				break
			}
		}
	}
	must[any](b)(l.Write(10000, engine.ChunkOpts{Segments: 3}))
	must[int](b)(l.Complete(1, nil))
	l.Continue()
	return l
}

// manyPackets stands in for a decoded capture.
type manyPackets int

func (n manyPackets) Len() int { return int(n) }
func (n manyPackets) Summary(i int) string {
	return fmt.Sprintf("RoCEv2 RC RDMA_READ_RESPONSE_MIDDLE psn %d len 1024", i)
}
func (n manyPackets) Detail(i int) []DetailLine {
	return []DetailLine{{0, "Ethernet II"}, {0, "IPv4"}, {0, "UDP 4791"}, {0, "InfiniBand BTH"}, {1, fmt.Sprintf("PSN %d", i)}}
}
func (n manyPackets) Bytes(int) []byte { return make([]byte, 96) }

// BenchmarkRedraw is one full frame, drawn and shown, of a session with
// 10 000 events in the model and 100 000 packets in the capture.
func BenchmarkRedraw(b *testing.B) {
	l := busyLab(b)
	m := NewModel(DefaultEvents)
	m.Update(l.Snapshot(), l.History())
	if m.EventCount() < 10_000 {
		b.Fatalf("only %d events", m.EventCount())
	}
	m.Packets = manyPackets(100_000)
	m.View.Scroll[PanePackets] = 50_000
	for _, tc := range []struct {
		layout Layout
		w, h   int
	}{{LayoutOverview, 80, 24}, {LayoutOverview, 200, 60}, {LayoutRead, 200, 60}, {LayoutPackets, 200, 60}} {
		b.Run(fmt.Sprintf("%s_%dx%d", tc.layout, tc.w, tc.h), func(b *testing.B) {
			s := tcell.NewSimulationScreen("UTF-8")
			if err := s.Init(); err != nil {
				b.Fatal(err)
			}
			defer s.Fini()
			s.SetSize(tc.w, tc.h)
			m.View.Layout = tc.layout
			th := NewTheme(256)
			var r renderer // as the Viewer draws: one buffer for every frame
			b.ReportAllocs()
			frame := 0
			for b.Loop() {
				frame++
				m.Snap.Clock = fmt.Sprint(frame) // something changes each frame
				r.draw(s, m, th)
				s.Show()
			}
		})
	}
}

// BenchmarkWakeUnchanged is what a wake-up that brings nothing new costs
// the view: reading the source and finding nothing to draw.
func BenchmarkWakeUnchanged(b *testing.B) {
	src := live(busyLab(b))
	l := &loop{src: src, m: NewModel(DefaultEvents)}
	l.pull()
	l.dirty = false
	b.ReportAllocs()
	for b.Loop() {
		l.pull()
		if l.dirty {
			b.Fatal("an unchanged source changed the model")
		}
	}
}
