package decode

// --check: every anomaly with its frame number, then what the capture
// cannot tell; the command fails when there is any anomaly.

import (
	"fmt"
	"io"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
)

// writeCheck lists notes and returns the number of anomalies.
func writeCheck(w io.Writer, notes []analysis.Note) (int, error) {
	anomalies, unknowns := 0, 0
	for _, n := range notes {
		if n.Kind.Anomaly() {
			anomalies++
			if _, err := fmt.Fprintf(w, "frame %d: %s: %s\n", n.Frame, n.Kind, n.Text); err != nil {
				return anomalies, err
			}
		}
	}
	for _, n := range notes {
		if !n.Kind.Anomaly() {
			unknowns++
			if _, err := fmt.Fprintf(w, "frame %d: (%s) %s\n", n.Frame, n.Kind, n.Text); err != nil {
				return anomalies, err
			}
		}
	}
	_, err := fmt.Fprintf(w, "%d anomalies, %d notes on what the capture cannot tell\n", anomalies, unknowns)
	return anomalies, err
}
