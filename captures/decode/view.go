package decode

import (
	"strings"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
)

// Line is the one-line summary of p, as `rdmalab decode` prints it
// (without the newline).
func Line(p *analysis.Packet) string {
	return strings.TrimSuffix(string(appendLine(nil, p)), "\n")
}

// JSON is p as one object of `rdmalab decode --json` (without the
// newline).
func JSON(p *analysis.Packet) []byte {
	var w jsonw
	appendJSON(&w, p)
	return w.b
}
