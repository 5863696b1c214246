package viz

import (
	"testing"

	"github.com/rdmalab/rdmalab/engine"
)

// The engine states the golden tests draw, each reached by driving a real
// engine.Lab.

func newLab(t testing.TB, mod func(*engine.Settings)) *engine.Lab {
	t.Helper()
	s := engine.DefaultSettings()
	if mod != nil {
		mod(&s)
	}
	l, err := engine.New(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// stateRead3: a WRITE whose Read chunk has three segments, its three RDMA
// Reads posted as one chain, the last one signaled.
func stateRead3(t testing.TB) *engine.Lab {
	l := newLab(t, nil)
	must[any](t)(l.Write(10000, engine.ChunkOpts{Segments: 3}))
	must[int](t)(l.Complete(1, nil))
	l.Continue()
	return l
}

// stateChained: a 200-page WRITE in one segment: the R/W context's SGL has
// 200 entries, more than first_sgl_nents (max_send_sge 32), so it is
// chained. (600 pages would pass rq_maxpages, 260, and fail with EINVAL.)
func stateChained(t testing.TB) *engine.Lab {
	l := newLab(t, nil)
	must[any](t)(l.Write(200*4096, engine.ChunkOpts{}))
	must[int](t)(l.Complete(1, nil))
	l.Continue()
	return l
}

// stateStarved: a Send Queue of 4 and three WRITEs needing 3 SQEs each:
// the first chain is posted, the next thread waits for SQEs.
func stateStarved(t testing.TB) *engine.Lab {
	l := newLab(t, func(s *engine.Settings) { s.SQDepth = 4; s.Threads = 3 })
	for range 3 {
		must[any](t)(l.Write(10000, engine.ChunkOpts{Segments: 3}))
	}
	must[int](t)(l.Complete(3, nil))
	l.Continue()
	return l
}

// stateRace: without sc_post_lock, nfsd1 takes position 2 and posts its
// Send before nfsd0 posts position 1; Send#2 completes first and the acked
// position passes reply 1, whose Send is still on the queue.
func stateRace(t testing.TB) *engine.Lab {
	l := newLab(t, func(s *engine.Settings) { s.Threads = 2; s.PostLock = false })
	for range 2 {
		must[any](t)(l.Write(64, engine.ChunkOpts{Inline: true}))
	}
	must[int](t)(l.Complete(2, nil))
	stepThreadUntil(t, l, "nfsd0", "sc_post_seq")
	stepThreadUntil(t, l, "nfsd1", "svc_rdma_post_send")
	stepThreadUntil(t, l, "nfsd1", "svc_rdma_post_send")
	stepThreadUntil(t, l, "nfsd0", "svc_rdma_post_send")
	l.Continue()
	must[int](t)(l.Complete(1, nil))
	return l
}

// stateRaceLate: then Send#1 completes too, behind the acked position:
// without the max in svc_xprt_advance_acked the position would step back.
func stateRaceLate(t testing.TB) *engine.Lab {
	l := stateRace(t)
	must[int](t)(l.Complete(1, nil))
	return l
}

// stateWrite2: an NFS READ whose Write chunk has two segments: two RDMA
// Writes (the second signaled) and the reply's Send on the queue.
func stateWrite2(t testing.TB) *engine.Lab {
	l := newLab(t, nil)
	must[any](t)(l.Write(20000, engine.ChunkOpts{}))
	for range 100 {
		l.Continue()
		if _, err := l.Complete(-1, nil); err != nil {
			break
		}
	}
	must[any](t)(l.Read(20000, engine.ChunkOpts{Segments: 2}))
	must[int](t)(l.Complete(1, nil))
	l.Continue()
	return l
}

func stepThreadUntil(t testing.TB, l *engine.Lab, thread, fn string) {
	t.Helper()
	for range 10000 {
		if err := l.StepThread(thread); err != nil {
			t.Fatalf("%s: %v (looking for %s)", thread, err, fn)
		}
		if l.Last().Func == fn {
			return
		}
	}
	t.Fatalf("%s never reached %s", thread, fn)
}

// modelOf is a model holding the lab's state, with a live lab's keys.
func modelOf(l *engine.Lab) *Model {
	m := NewModel(0)
	m.Can = Abilities{Step: true}
	m.Update(l.Snapshot(), l.History())
	return m
}
