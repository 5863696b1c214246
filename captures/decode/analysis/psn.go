package analysis

// PSNs are 24-bit and wrap (IBTA 9.7.1): a PSN is "before" another when it
// is less than 2^23 behind it.

const (
	psnMask = 1<<24 - 1
	psnHalf = 1 << 23
)

// PSNDiff returns a - b as a signed distance on the 24-bit circle.
func PSNDiff(a, b uint32) int {
	d := int((a - b) & psnMask)
	if d >= psnHalf {
		d -= 1 << 24
	}
	return d
}

func psnAdd(a uint32, n int) uint32 { return uint32(int(a)+n) & psnMask }

// psnLE reports whether a is at or before b.
func psnLE(a, b uint32) bool { return PSNDiff(a, b) <= 0 }
