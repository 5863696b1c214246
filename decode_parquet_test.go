package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

// parquetCaptures are the captures the Parquet test puts into one file:
// every capture in captures/testdata.
func parquetCaptures(t *testing.T) []string {
	files, err := filepath.Glob("captures/testdata/*.pcap")
	if err != nil || len(files) < 7 {
		t.Fatalf("captures/testdata: %v %v", files, err)
	}
	return files
}

// quantile is DuckDB's quantile_cont: linear interpolation between the
// closest ranks.
func quantile(v []float64, q float64) float64 {
	s := slices.Sorted(slices.Values(v))
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	if lo+1 >= len(s) {
		return s[lo]
	}
	return s[lo] + (pos-float64(lo))*(s[lo+1]-s[lo])
}

func num(t *testing.T, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return x
	case string:
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			t.Fatalf("not a number: %q", x)
		}
		return f
	}
	t.Fatalf("not a number: %#v", v)
	return 0
}

// TestParquetInDuckDB writes every capture of captures/testdata into one
// file of packets and one of RPCs, and checks what a real DuckDB reads
// from them against decode's own text and JSON outputs of each capture:
// the packets and their bytes, the RPCs, the bytes RDMA moved for them,
// and the p50 and p99 latency of each procedure.
func TestParquetInDuckDB(t *testing.T) {
	files := parquetCaptures(t)
	dir := t.TempDir()
	pq, rq := filepath.Join(dir, "packets.parquet"), filepath.Join(dir, "rpcs.parquet")
	if code, _, stderr := runDecode(append([]string{"--parquet", pq}, files...)...); code != exitOK ||
		!strings.Contains(stderr, fmt.Sprintf("packet rows from %d captures to %s", len(files), pq)) {
		t.Fatalf("decode --parquet: exit %d: %s", code, stderr)
	}
	// A glob quoted past the shell: the same captures, as its expansion names them.
	if code, _, stderr := runDecode("--rpc", "--parquet", rq, "captures/testdata/*.pcap"); code != exitOK {
		t.Fatalf("decode --rpc --parquet: exit %d: %s", code, stderr)
	}

	type procKey struct{ capture, prog, vers, proc string }
	wantPackets := map[string][3]float64{} // capture: packets, wire bytes, payload bytes
	wantRPCs := map[string][2]float64{}    // capture: RPCs, bytes RDMA READ and WRITE moved
	latencies := map[procKey][]float64{}   // ms
	for _, f := range files {
		code, out, stderr := runDecode("-T", "fields", "-e", "frame.len", "-e", "rdmalab.payload_len", f)
		if code != exitOK {
			t.Fatalf("%s: %s", f, stderr)
		}
		var w [3]float64
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			wire, payload, _ := strings.Cut(line, "\t")
			w[0]++
			w[1] += num(t, wire)
			if payload != "" {
				w[2] += num(t, payload)
			}
		}
		wantPackets[f] = w
		code, out, stderr = runDecode("--rpc", "--json", f)
		if code != exitOK {
			t.Fatalf("%s: %s", f, stderr)
		}
		var r [2]float64
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if line == "" {
				continue
			}
			var rpc struct {
				Program, Version, Procedure *int
				Latency                     *float64
				Reads, Writes               []struct{ Bytes int }
			}
			if err := json.Unmarshal([]byte(line), &rpc); err != nil {
				t.Fatalf("%s: --rpc --json: %v: %s", f, err, line)
			}
			r[0]++
			for _, op := range append(rpc.Reads, rpc.Writes...) {
				r[1] += float64(op.Bytes)
			}
			if rpc.Latency != nil && rpc.Program != nil {
				k := procKey{f, strconv.Itoa(*rpc.Program), strconv.Itoa(*rpc.Version), strconv.Itoa(*rpc.Procedure)}
				latencies[k] = append(latencies[k], *rpc.Latency*1e3)
			}
		}
		wantRPCs[f] = r
	}

	res := testutil.DuckDB(t,
		fmt.Sprintf(`select capture, count(*) n, sum(wire_len) wire, coalesce(sum(payload), 0) payload
			from '%s' group by capture`, pq),
		fmt.Sprintf(`select capture, count(*) n, sum(rdma_read_bytes + rdma_write_bytes) moved
			from '%s' group by capture`, rq),
		fmt.Sprintf(`select capture, program::varchar prog, version::varchar vers, procedure::varchar proc,
			quantile_cont(latency_ms, 0.5) p50, quantile_cont(latency_ms, 0.99) p99
			from '%s' where latency_ms is not null and program is not null group by all`, rq),
		fmt.Sprintf(`select count(*) n from '%s' where xid is not null and rpc is null and rpc_message is null`, pq),
		fmt.Sprintf(`select column_name, column_type from (describe select * from '%s')`, pq),
		fmt.Sprintf(`select column_name, column_type from (describe select * from '%s')`, rq),
		readmeQuery(t, rq),
	)
	// The README's query, on the file its command writes, answers per procedure.
	if procs := res[6]; len(procs) < 10 || procs[0]["proc_name"] != "COMPOUND" || num(t, procs[0]["rdma_bytes"]) == 0 {
		t.Errorf("the README's DuckDB query gives %v", procs)
	}
	// docs/parquet.md lists every column with the type DuckDB sees.
	doc := string(testutil.ReadFile(t, "docs/parquet.md"))
	for _, cols := range res[4:6] {
		for _, c := range cols {
			if row := fmt.Sprintf("| `%s` | %s |", c["column_name"], c["column_type"]); !strings.Contains(doc, row) {
				t.Errorf("docs/parquet.md has no row %q", row)
			}
		}
	}
	if len(res[0]) != len(files) || len(res[1]) != countRPCCaptures(wantRPCs) {
		t.Errorf("DuckDB sees %d captures of packets and %d of RPCs; want %d and %d", len(res[0]), len(res[1]), len(files), countRPCCaptures(wantRPCs))
	}
	for _, row := range res[0] {
		c := row["capture"].(string)
		got := [3]float64{num(t, row["n"]), num(t, row["wire"]), num(t, row["payload"])}
		if got != wantPackets[c] {
			t.Errorf("%s: DuckDB counts packets, wire bytes, payload bytes %v; decode -T fields %v", c, got, wantPackets[c])
		}
	}
	for _, row := range res[1] {
		c := row["capture"].(string)
		got := [2]float64{num(t, row["n"]), num(t, row["moved"])}
		if got != wantRPCs[c] {
			t.Errorf("%s: DuckDB counts RPCs and bytes moved %v; decode --rpc --json %v", c, got, wantRPCs[c])
		}
	}
	if len(res[2]) != len(latencies) {
		t.Errorf("DuckDB has latencies of %d procedures; decode --rpc --json of %d", len(res[2]), len(latencies))
	}
	for _, row := range res[2] {
		k := procKey{row["capture"].(string), row["prog"].(string), row["vers"].(string), row["proc"].(string)}
		l := latencies[k]
		if len(l) == 0 {
			t.Errorf("%v: latency in DuckDB, none from decode", k)
			continue
		}
		for q, col := range map[float64]string{0.5: "p50", 0.99: "p99"} {
			if got, want := num(t, row[col]), quantile(l, q); math.Abs(got-want) > 1e-6*math.Max(1, want) {
				t.Errorf("%v: %s %g ms in DuckDB, %g ms from decode --rpc --json", k, col, got, want)
			}
		}
	}
	if n := num(t, res[3][0]["n"]); n != 0 {
		t.Errorf("%g packets have an XID and no RPC", n)
	}
	if len(latencies) < 10 {
		t.Errorf("only %d procedures with a latency: the captures lost their RPCs", len(latencies))
	}
}

// readmeQuery is the DuckDB query the README shows, over path.
func readmeQuery(t *testing.T, path string) string {
	readme := string(testutil.ReadFile(t, "README.md"))
	if !strings.Contains(readme, "go run . decode --rpc --parquet rpcs.parquet 'captures/testdata/*.pcap'") {
		t.Fatal("the README no longer writes rpcs.parquet the way this test does")
	}
	_, q, ok := strings.Cut(readme, `duckdb -c "`)
	q, _, ok2 := strings.Cut(q, `"`)
	if !ok || !ok2 {
		t.Fatal("the README shows no duckdb -c \"QUERY\"")
	}
	return strings.ReplaceAll(q, "'rpcs.parquet'", "'"+path+"'")
}

func countRPCCaptures(m map[string][2]float64) int {
	n := 0
	for _, v := range m {
		if v[0] > 0 {
			n++
		}
	}
	return n
}

// TestParquetErrors: a damaged capture among many leaves no file behind
// and names itself; --parquet refuses the text outputs' flags.
func TestParquetErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.parquet")
	bad := filepath.Join(dir, "bad.pcap")
	b, err := os.ReadFile("captures/testdata/nfs3-rdma.pcap")
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, bad, b[:len(b)-7])
	code, _, stderr := runDecode("--parquet", out, "captures/testdata/sim-nfs3.pcap", bad)
	if code != exitFailed || !strings.Contains(stderr, bad) || !strings.Contains(stderr, out+" not written") {
		t.Errorf("a truncated capture: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s is there after a failed run: %v", out, err)
	}
	for _, args := range [][]string{{"-V"}, {"--json"}, {"-x"}, {"-T", "fields", "-e", "frame.len"}} {
		code, _, stderr := runDecode(append(append(args, "--parquet", out), "captures/testdata/sim-nfs3.pcap")...)
		if code != exitUsage || !strings.Contains(stderr, "--parquet writes rows, not text") {
			t.Errorf("%v --parquet: exit %d, %q", args, code, stderr)
		}
	}
	if code, _, stderr := runDecode("--parquet", out, "-", "captures/testdata/sim-nfs3.pcap"); code != exitUsage ||
		!strings.Contains(stderr, "standard input (-) is one capture alone") {
		t.Errorf("- among files: exit %d, %q", code, stderr)
	}
}
