package fresh

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/fields"
	"github.com/rdmalab/rdmalab/internal/testutil"
)

// Three fresh repetitions of a kernel capture are three times the
// capture: three times its RPCs and its anomalies (none of them a
// retransmission of an earlier repetition), every ICRC as good as it was.
func TestRepetitionsAreFreshFlows(t *testing.T) {
	for _, name := range []string{"nfs3-rdma.pcap", "rdmacm-rping.pcap", "verbs-rc-pingpong.pcap"} {
		in := testutil.Capture(t, name)
		summary := func(path string) (frames int, rpcs string, anomalies int, badICRC int) {
			var lines, rpc bytes.Buffer
			an, err := decode.Write(&lines, path, decode.Output{Check: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := decode.Write(&rpc, path, decode.Output{RPCs: true}); err != nil {
				t.Fatal(err)
			}
			d, err := fields.CompileDisplayFilter("rdmalab.icrc_bad")
			if err != nil {
				t.Fatal(err)
			}
			var bad bytes.Buffer
			if _, err := decode.Write(&bad, path, decode.Output{Display: d}); err != nil {
				t.Fatal(err)
			}
			out := strings.Split(strings.TrimSpace(rpc.String()), "\n")
			_, err = decode.ReadFile(path, func(*analysis.Packet) error { frames++; return nil })
			if err != nil {
				t.Fatal(err)
			}
			return frames, out[len(out)-1], an, strings.Count(bad.String(), "\n")
		}
		f, r, a, b := summary(in)
		out := filepath.Join(t.TempDir(), "rep.pcap")
		st, err := RepeatFile(out, in, 3*f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Repetitions != 3 || st.Frames != 3*f || st.AsIs != 0 {
			t.Errorf("%s: %+v, want 3 repetitions of %d frames, each rewritten", name, st, f)
		}
		f3, r3, a3, b3 := summary(out)
		var n int
		if _, err := fmt.Sscan(r, &n); err != nil {
			t.Fatalf("%s: --rpc ends %q", name, r)
		}
		if want := strings.Replace(r, strings.Fields(r)[0], strconv.Itoa(3*n), 1); f3 != 3*f || r3 != want || a3 != 3*a || b3 != 3*b {
			t.Errorf("%s: repeated: %d frames, %q, %d anomalies, %d bad ICRCs; want %d, %q, %d, %d", name, f3, r3, a3, b3, 3*f, want, 3*a, 3*b)
		}
	}
}
