package engine

import "github.com/rdmalab/rdmalab/engine/trace"

// histBlock is how many events one block of the history holds.
const histBlock = 1000

// history keeps the newest maxHistory events, oldest first, in blocks
// allocated as the session grows: growing never copies what is kept.
type history struct {
	blocks [][]trace.Event // filled front to back; a ring once all are full
	head   int             // the oldest event's slot, once the ring is full
	n      int
}

// at is the ith oldest event kept.
func (h *history) at(i int) *trace.Event {
	s := (h.head + i) % maxHistory
	return &h.blocks[s/histBlock][s%histBlock]
}

// push keeps a copy of ev, letting the oldest event go once maxHistory
// are kept, and returns the copy: it stays in place until maxHistory more
// are pushed.
func (h *history) push(ev *trace.Event) *trace.Event {
	if h.n < maxHistory {
		b := h.n / histBlock
		if b == len(h.blocks) {
			h.blocks = append(h.blocks, make([]trace.Event, histBlock))
		}
		slot := &h.blocks[b][h.n%histBlock]
		*slot = *ev
		h.n++
		return slot
	}
	slot := h.at(0)
	*slot = *ev
	h.head = (h.head + 1) % maxHistory
	return slot
}
