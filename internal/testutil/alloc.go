package testutil

import "runtime"

// Allocated is the bytes f allocates: unlike the time it takes, the same
// on every run and every machine, so a test can hold growth to a bound.
func Allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}
