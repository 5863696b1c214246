//go:build unix

package lessons

import "syscall"

// openNonblock makes opening a FIFO return at once.
const openNonblock = syscall.O_NONBLOCK
