package sim

import (
	"fmt"
	"sync/atomic"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// cq is a completion queue: verbs.CQ, a FIFO of at most size entries.
type cq struct {
	dev      *device
	size     int
	wcs      []verbs.WC
	n        atomic.Int32 // len(wcs), kept at each change: Poll of an empty CQ takes no lock
	overruns int
	users    int // QPs using it as send or receive CQ
	dead     bool
}

var _ verbs.CQ = (*cq)(nil)

// push writes a completion. A full CQ drops it and counts an overrun, as
// rxe_cq_post does (rxe also raises IB_EVENT_CQ_ERR).
func (c *cq) push(wc verbs.WC) {
	if c.dead {
		return
	}
	if len(c.wcs) >= c.size {
		c.overruns++
		return
	}
	c.wcs = append(c.wcs, wc)
	c.n.Store(int32(len(c.wcs)))
}

// Poll is ibv_poll_cq: it moves up to len(wc) completions, oldest first.
func (c *cq) Poll(wc []verbs.WC) int {
	if c.n.Load() == 0 {
		return 0 // the Lab polls every CQ after every operation
	}
	f := c.dev.f
	f.mu.Lock()
	defer f.mu.Unlock()
	n := copy(wc, c.wcs)
	if n == len(c.wcs) {
		c.wcs = c.wcs[:0]
	} else {
		c.wcs = append(c.wcs[:0], c.wcs[n:]...)
	}
	c.n.Store(int32(len(c.wcs)))
	return n
}

func (c *cq) Destroy() error {
	f := c.dev.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if c.dead {
		return fmt.Errorf("sim: destroy cq: already destroyed: %w", verbs.EINVAL)
	}
	if c.users > 0 {
		return fmt.Errorf("sim: destroy cq: %d QPs still use it: %w", c.users, verbs.EBUSY)
	}
	c.dead = true
	c.wcs = nil
	c.n.Store(0)
	return nil
}
