// Command gencap writes a pcap of what the simulator puts on the wire for
// an NFSv3 over RDMA workload, for benchmarks that need big captures
// (captures/bench/compare.sh):
//
//	go run ./captures/bench/gencap -packets 1000000 -o FILE
//
// It drives engine.Labs through a mix of NFS calls, some in flight at once
// for the nfsd threads to share: WRITEs whose data goes in Read chunks,
// READs with Write chunks, READDIRs with Reply chunks, GETATTRs, and small
// inline READs and WRITEs. Each Lab streams its traffic (Lab.StartCapture)
// and keeps no transfer (SetCapture(false)). After -calls calls gencap
// lets that Lab go and connects a new one, as a client reconnecting would,
// so the decoder meets many connections: the file holds one connection
// (CM exchange, QPs, PSNs, XIDs) per Lab, stamped one after the other, and
// memory stays flat whatever the size (-calls 0 keeps one Lab). It stops at
// the end of the first batch of calls that takes the file past -packets
// frames. The same flags give the same file.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime/debug"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/nfsd"
	"github.com/rdmalab/rdmalab/engine/xprt"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type config struct {
	packets int
	out     string
	seed    int64
	threads int
	mtu     int
	calls   int // calls per Lab
	quiet   bool
}

func run(args []string, stdout, stderr io.Writer) int {
	var c config
	fs := flag.NewFlagSet("gencap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.packets, "packets", 1_000_000, "write at least this many frames")
	fs.StringVar(&c.out, "o", "", "the pcap file to write (required)")
	fs.Int64Var(&c.seed, "seed", 1, "lab and workload seed")
	fs.IntVar(&c.threads, "threads", 4, "nfsd threads (1..64)")
	fs.IntVar(&c.mtu, "mtu", 1024, "path MTU: 256, 512, 1024, 2048 or 4096")
	fs.IntVar(&c.calls, "calls", 100, "NFS calls per connection (a new Lab after that many; 0: one connection)")
	fs.BoolVar(&c.quiet, "q", false, "print nothing on success")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if c.out == "" || fs.NArg() != 0 || c.packets < 1 || c.calls < 0 {
		fmt.Fprintln(stderr, "usage: gencap [-packets N] [-seed S] [-threads T] [-mtu M] [-calls C] [-q] -o FILE")
		return 2
	}
	// The garbage is the sim's copies of each payload; a soft limit keeps
	// the heap near what is live (a Lab and its calls: tens of MB).
	debug.SetMemoryLimit(64 << 20)
	st, err := generate(c)
	if err != nil {
		fmt.Fprintf(stderr, "gencap: %v\n", err)
		return 1
	}
	if !c.quiet {
		fmt.Fprintf(stdout, "gencap: %s: %d packets, %d NFS calls on %d connections\n", c.out, st.packets, st.calls, st.conns)
	}
	return 0
}

type stats struct{ packets, calls, conns int }

// generate writes the capture.
func generate(c config) (st stats, err error) {
	f, err := os.Create(c.out)
	if err != nil {
		return st, err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	sp := newSplice(bw)
	rng := rand.New(rand.NewPCG(uint64(c.seed), 0x6e667333))
	for st.packets < c.packets {
		n, calls, err := connection(c, st.conns, rng, sp, c.packets-st.packets)
		st.packets += n
		st.calls += calls
		st.conns++
		if err != nil {
			return st, fmt.Errorf("connection %d: %w", st.conns, err)
		}
		sp.next()
	}
	return st, bw.Flush()
}

// connection runs one Lab for c.calls calls or until it wrote want frames,
// and returns how many frames and calls it made.
func connection(c config, gen int, rng *rand.Rand, w io.Writer, want int) (packets, calls int, err error) {
	s := engine.DefaultSettings()
	// Seeds 256 apart: the client's XIDs start 4096 apart, so no two
	// connections share one.
	s.Seed, s.Threads, s.PathMTU = c.seed+int64(gen)*256, c.threads, c.mtu
	l, err := engine.New(s)
	if err != nil {
		return 0, 0, err
	}
	defer l.Close()
	l.SetCapture(false) // stream only: keep no payload
	if err := l.StartCapture(w); err != nil {
		return 0, 0, err
	}
	wl := workload{l: l, rng: rng}
	// The file needs data before READs of it return any.
	err = wl.issue(func() (*xprt.Call, error) { return l.Write(1<<20, engine.ChunkOpts{}) })
	for err == nil && (c.calls == 0 || wl.calls < c.calls) && l.CapturePackets() < want {
		for i := rng.IntN(4); i >= 0 && err == nil; i-- {
			err = wl.issue(wl.next())
		}
		if err == nil {
			err = wl.settle()
		}
	}
	n, serr := l.StopCapture()
	return n, wl.calls, errors.Join(err, serr)
}

// workload picks the calls.
type workload struct {
	l     *engine.Lab
	rng   *rand.Rand
	calls int
}

var ioSizes = []int{4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20}

// next returns the next call of the mix.
func (w *workload) next() func() (*xprt.Call, error) {
	l := w.l
	size := ioSizes[w.rng.IntN(len(ioSizes))]
	o := engine.ChunkOpts{Segments: 1 + w.rng.IntN(3)}
	if w.rng.IntN(4) == 0 {
		o.PageOff = 4 * w.rng.IntN(1024)
	}
	switch p := w.rng.IntN(100); {
	case p < 33:
		return func() (*xprt.Call, error) { return l.Write(size, o) }
	case p < 66:
		return func() (*xprt.Call, error) { return l.Read(size, o) }
	case p < 76:
		n := 4096 << w.rng.IntN(4)
		segs := 1 + w.rng.IntN(2)
		return func() (*xprt.Call, error) { return l.Readdir(n, engine.ChunkOpts{Segments: segs}) }
	case p < 91:
		return func() (*xprt.Call, error) {
			return l.Call(xprt.CallSpec{Label: "NFSv3 GETATTR", Msg: nfsd.GetattrCall(l.NFS.Lookup("data").FH)})
		}
	case p < 96:
		n := 1 + w.rng.IntN(1024)
		return func() (*xprt.Call, error) { return l.Write(n, engine.ChunkOpts{Inline: true}) }
	default:
		n := 1 + w.rng.IntN(1024)
		return func() (*xprt.Call, error) { return l.Read(n, engine.ChunkOpts{Inline: true}) }
	}
}

// issue posts one call.
func (w *workload) issue(f func() (*xprt.Call, error)) error {
	if _, err := f(); err != nil {
		return fmt.Errorf("call %d: %w", w.calls+1, err)
	}
	w.calls++
	return nil
}

// settle runs the lab until every call is answered and nothing is left
// to do.
func (w *workload) settle() error {
	for i := 0; i < 100_000; i++ {
		w.l.Continue()
		if _, err := w.l.Complete(-1, nil); errors.Is(err, engine.ErrNothingPending) {
			return nil
		} else if err != nil {
			return err
		}
	}
	return fmt.Errorf("the lab did not settle after call %d", w.calls)
}
