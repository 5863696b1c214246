// Command repeat makes a capture of the traffic users capture big enough
// to time: it repeats a capture as fresh flows (package fresh) until it
// holds -n frames.
//
//	go run ./captures/bench/repeat -n 200000 -o nfs3-200k.pcap captures/testdata/nfs3-rdma.pcap
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/rdmalab/rdmalab/captures/bench/fresh"
)

func main() {
	n := flag.Int("n", 200000, "frames to write at least")
	out := flag.String("o", "", "the pcap file to write (required)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: repeat [-n FRAMES] -o OUT CAPTURE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() != 1 || *n < 1 {
		flag.Usage()
		os.Exit(2)
	}
	st, err := fresh.RepeatFile(*out, flag.Arg(0), *n)
	if err != nil {
		fmt.Fprintf(os.Stderr, "repeat: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d frames, %d repetitions of %s (%d frames copied unchanged)\n", *out, st.Frames, st.Repetitions, flag.Arg(0), st.AsIs)
}
