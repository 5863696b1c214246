package testutil

import (
	"bytes"
	"cmp"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// DuckDBModules is where .ci/run installs DuckDB's Node.js client
// (@duckdb/node-api): $RDMALAB_DUCKDB, or ~/.cache/rdmalab/duckdb.
func DuckDBModules() string {
	home, _ := os.UserHomeDir()
	return cmp.Or(os.Getenv("RDMALAB_DUCKDB"), filepath.Join(home, ".cache", "rdmalab", "duckdb"))
}

// duckQuery runs each SQL statement of argv in one in-memory DuckDB and
// prints each result as a line of JSON rows.
const duckQuery = `const {DuckDBInstance} = require('@duckdb/node-api');
(async () => {
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  for (const q of process.argv.slice(2)) {
    console.log(JSON.stringify((await c.runAndReadAll(q)).getRowObjectsJson()));
  }
})().catch(e => { console.error(e.message); process.exit(1); });
`

// DuckDB runs the queries in a real DuckDB (its Node.js client, not the
// library that wrote the files) and returns each one's rows, every value
// as DuckDB's JSON gives it (BIGINTs as strings). It reports DuckDB
// Missing when node or the client is not installed.
func DuckDB(t testing.TB, queries ...string) [][]map[string]any {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		Missing(t, "node is not installed (apt-get install nodejs), and DuckDB runs in it")
	}
	mods := filepath.Join(DuckDBModules(), "node_modules")
	if _, err := os.Stat(filepath.Join(mods, "@duckdb", "node-api")); err != nil {
		Missing(t, "DuckDB's Node.js client is not in "+mods+" (npm install --prefix "+DuckDBModules()+" @duckdb/node-api)")
	}
	script := filepath.Join(t.TempDir(), "query.js")
	WriteFile(t, script, []byte(duckQuery))
	cmd := exec.Command(node, append([]string{script}, queries...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, stderr.String())
	}
	var results [][]map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var rows []map[string]any
		if err := json.Unmarshal(line, &rows); err != nil {
			t.Fatalf("duckdb printed %q: %v", line, err)
		}
		results = append(results, rows)
	}
	if len(results) != len(queries) {
		t.Fatalf("duckdb answered %d of %d queries:\n%s", len(results), len(queries), out)
	}
	return results
}
