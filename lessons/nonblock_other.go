//go:build !unix

package lessons

// openNonblock: no FIFO to wait on here.
const openNonblock = 0
