package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rdmalab/rdmalab/captures/columnar"
	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/internal/cli"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// parquetInputs is the captures `decode --parquet` reads: the files as
// given, a quoted glob expanded (a shell that found nothing, or a user
// who quoted it to pass more names than a command line holds).
func parquetInputs(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no capture file given")
	}
	var files []string
	for _, a := range args {
		if _, err := os.Lstat(a); err == nil || a == "-" {
			files = append(files, a)
			continue
		}
		m, err := filepath.Glob(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", safe.Typed(a), err)
		}
		if len(m) == 0 {
			files = append(files, a) // its open names the missing file
			continue
		}
		files = append(files, m...)
	}
	n := 0
	for _, f := range files {
		if f == "-" {
			n++
		}
	}
	if n > 0 && len(files) > 1 {
		return nil, fmt.Errorf("standard input (-) is one capture alone, not one of %d", len(files))
	}
	return files, nil
}

// writeParquet is `decode --parquet OUT FILE...`: the rows of every
// capture into one file, which appears only if every capture was read to
// its end. A damaged capture is named and the file is not written.
func writeParquet(out string, files []string, o decode.Output, stdin io.Reader, stdout, stderr io.Writer) int {
	w, err := columnar.Create(out, o.RPCs)
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab decode: %v\n", err)
		return exitFailed
	}
	anomalies := 0
	for _, f := range files {
		o.Rows = w.Capture(f)
		var n int
		if f == "-" {
			n, err = decode.WriteStream(stdout, stdin, "standard input", o)
		} else {
			n, err = decode.Write(stdout, f, o)
		}
		anomalies += n
		if err != nil {
			w.Abort()
			fmt.Fprintf(stderr, "rdmalab decode: %v\n%s not written\n", err, safe.Typed(out))
			return exitFailed
		}
	}
	if err := w.Close(); err != nil {
		fmt.Fprintf(stderr, "rdmalab decode: %v\n", err)
		return exitFailed
	}
	kind := "packet"
	if o.RPCs {
		kind = "RPC"
	}
	captures := "1 capture"
	if len(files) > 1 {
		captures = cli.Thousands(len(files)) + " captures"
	}
	fmt.Fprintf(stderr, "rdmalab decode: %s %s rows from %s to %s\n", cli.Thousands(int(w.Rows())), kind,
		captures, safe.Typed(out))
	if anomalies > 0 {
		return exitFailed
	}
	return exitOK
}
