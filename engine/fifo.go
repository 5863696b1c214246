package engine

// fifo is a queue in one array: items arrive at the back and leave from
// the front, and when the back is full while at least half the array has
// left from the front, the items move down instead of the array growing,
// so a queue that stays about the same length stops allocating.
type fifo[T any] struct {
	buf  []T
	head int
}

// items is the queue, front first. It is valid until the next push.
func (q *fifo[T]) items() []T { return q.buf[q.head:] }

func (q *fifo[T]) len() int { return len(q.buf) - q.head }

// push adds v at the back.
func (q *fifo[T]) push(v T) {
	if len(q.buf) == cap(q.buf) && q.head > 0 && q.head >= len(q.buf)/2 {
		n := copy(q.buf, q.buf[q.head:])
		clear(q.buf[n:])
		q.buf, q.head = q.buf[:n], 0
	}
	q.buf = append(q.buf, v)
}

// drop lets the k front items go.
func (q *fifo[T]) drop(k int) {
	k = min(k, q.len())
	clear(q.buf[q.head : q.head+k])
	q.head += k
}
