package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rdmalab/rdmalab/engine/svcrdma"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// checkAlways asserts what must hold after every step.
func checkAlways(t *testing.T, l *Lab, prevAcked uint64, lock bool) {
	t.Helper()
	x := l.Server
	if x.SQAvail < 0 || x.SQAvail > x.SQDepth {
		t.Fatalf("sc_sq_avail %d outside 0..%d", x.SQAvail, x.SQDepth)
	}
	if x.AckedPos > x.PostSeq {
		t.Fatalf("acked position %d passed post_seq %d", x.AckedPos, x.PostSeq)
	}
	if lock && x.AckedPos < prevAcked {
		t.Fatalf("acked position went back from %d to %d", prevAcked, x.AckedPos)
	}
	// Every rw ctxt is in exactly one place.
	seen := map[*svcrdma.RWCtxt]bool{}
	for _, c := range x.RWCache {
		if seen[c] {
			t.Fatalf("rw#%d twice in the cache", c.ID)
		}
		seen[c] = true
		if c.Where != "cache" {
			t.Fatalf("rw#%d in the cache marked %q", c.ID, c.Where)
		}
	}
	for _, c := range x.AllRWCtxts() {
		if !seen[c] && c.Where == "cache" {
			dumpTail(t, l, 40)
			t.Fatalf("rw#%d marked cached but not in the cache", c.ID)
		}
	}
}

func TestRandomSchedulesKeepInvariants(t *testing.T) {
	profiles := svcrdma.Profiles()
	for seed := uint64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewPCG(seed, 42))
		prof := profiles[r.IntN(len(profiles))]
		lock := r.IntN(4) != 0
		threads := 1 + r.IntN(3)
		faults := r.IntN(3) == 0
		name := fmt.Sprintf("seed%d/%s/threads%d/lock%v/faults%v", seed, prof, threads, lock, faults)
		t.Run(name, func(t *testing.T) {
			l := newLab(t, func(s *Settings) {
				s.Seed, s.Profile, s.Threads, s.PostLock = int64(seed), string(prof), threads, lock
				s.SQDepth = 8 + r.IntN(40) // small enough to starve
			})
			var acked uint64
			for i := 0; i < 250; i++ {
				opt := ChunkOpts{Segments: 1 + r.IntN(4), PageOff: []int{0, 0, 100, 4000}[r.IntN(4)]}
				switch r.IntN(12) {
				case 0, 1:
					l.Write(1+r.IntN(300_000), opt)
				case 2:
					l.Read(1+r.IntN(200_000), opt)
				case 3:
					l.Readdir(4096*(1+r.IntN(4)), opt)
				case 4:
					l.LongCall(1+r.IntN(20_000), opt)
				case 5, 6, 7:
					l.StepN(1 + r.IntN(200))
				case 8, 9:
					var st *verbs.Status
					if faults && r.IntN(8) == 0 {
						s := []verbs.Status{verbs.StatusRemAccessErr, verbs.StatusWRFlushErr, verbs.StatusRetryExcErr}[r.IntN(3)]
						st = &s
					}
					l.Complete(1+r.IntN(4), st)
				case 10:
					name := fmt.Sprintf("nfsd%d", r.IntN(threads))
					for j := 0; j < 1+r.IntN(30); j++ {
						if l.StepThread(name) != nil {
							break
						}
					}
				case 11:
					l.Continue()
				}
				checkAlways(t, l, acked, lock)
				acked = l.Server.AckedPos
			}
			settle(t, l)
			checkAlways(t, l, acked, lock)
			if l.Server.Counters.Hung > 0 {
				// The seed's chunk-post threshold can hang a thread for good
				// with a small SQ: what it holds stays held.
				return
			}
			checkIdle(t, l)
			if prof != svcrdma.ProfileSeed {
				if d := l.NFS.Lookup("data").Bytes(); !bytes.Equal(d, Pattern(int64(seed), 0, len(d))) {
					t.Fatalf("the file's %d bytes differ from what the client wrote", len(d))
				}
			}
		})
	}
}

func dumpTail(t *testing.T, l *Lab, n int) {
	h := l.History()
	for _, e := range h[max(0, len(h)-n):] {
		t.Log(e.String())
	}
}
