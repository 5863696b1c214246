package testutil

import "bytes"

// WriteSizes is a writer that keeps what is written to it and the size
// of each write: a test of how output is cut into system calls.
type WriteSizes struct {
	bytes.Buffer
	Sizes []int
}

// Write records p's size and keeps p.
func (w *WriteSizes) Write(p []byte) (int, error) {
	w.Sizes = append(w.Sizes, len(p))
	return w.Buffer.Write(p)
}
