package engine

// fifo is a queue in one array: items arrive at the back and leave from
// the front. When the back is full, the items move down if they fill at
// most half the array, else to an array twice their number; so a queue
// that stays about one length stops allocating, and the array never holds
// more than about twice the items.
type fifo[T any] struct {
	buf  []T
	head int
}

// items is the queue, front first. It is valid until the next push.
func (q *fifo[T]) items() []T { return q.buf[q.head:] }

func (q *fifo[T]) len() int { return len(q.buf) - q.head }

// push adds v at the back.
func (q *fifo[T]) push(v T) {
	if len(q.buf) == cap(q.buf) && q.head > 0 {
		live := q.buf[q.head:]
		if 2*len(live) <= cap(q.buf) {
			n := copy(q.buf, live)
			clear(q.buf[n:])
			q.buf = q.buf[:n]
		} else {
			q.buf = append(make([]T, 0, 2*len(live)+1), live...)
		}
		q.head = 0
	}
	q.buf = append(q.buf, v)
}

// drop lets the k front items go.
func (q *fifo[T]) drop(k int) {
	k = min(k, q.len())
	clear(q.buf[q.head : q.head+k])
	q.head += k
}
