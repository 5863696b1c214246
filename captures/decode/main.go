package decode

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/internal/cli"
)

// Exit statuses of Main.
const (
	ExitOK       = 0
	ExitProblems = 1 // --check found anomalies, or the file is damaged or unreadable
	ExitUsage    = 2 // the command line is wrong
)

const usage = `usage: rdmalab decode [-V | --json] [--rpc] [--check] [--filter EXPR] [--max-expand SIZE] FILE

Decodes a pcap or pcapng capture (gzip-compressed or not) of RoCEv1,
RoCEv2 or native InfiniBand traffic and its RPC-over-RDMA, ONC RPC and NFS
messages, checks every ICRC and VCRC, and analyses each queue pair:
messages, PSNs, acknowledgements, RDMA READ responses, and which RPC chunk
segment every RDMA READ and WRITE fills.

Output (one of):
  (default)      one line per packet, as tshark prints them
  -V             a detail tree per packet
  --json         one JSON object per packet per line, with Wireshark's field
                 names (infiniband.bth.opcode, infiniband.cm.req.localqpn,
                 rpcordma.xid, rpc.xid, nfs.procedure_v3, nfs.offset3, ...)
                 and rdmalab's (icrc_ok, msg, ack, atomic, ee_context, rpc,
                 chunk, segment, notes); it streams, in bounded memory
  --rpc          a table per RPC: call, chunks, RDMA READs and WRITEs,
                 reply, acknowledgements, latency (with --json: one object
                 per RPC)
  --check        the anomalies with their frame numbers; the exit status is
                 1 when there is any (combines with the others)

Selection:
  --filter EXPR  packets matching every comma-separated term:
                   qp=N (to or from QP N), opcode=N|NAME (4, 0x11,
                   send-only, "RC Acknowledge"), xid=N (the packets of one RPC);
                 "|" lists alternatives: opcode=4|23

Limits:
  ` + cli.MaxExpandHelp + `

Exit status: 0 fine, 1 anomalies (--check) or a damaged or unreadable file,
2 usage error.
`

type options struct {
	verbose, json, rpc, check bool
	filter                    string
	file                      string
	maxExpand                 int64
}

// Main runs "rdmalab decode" with args (after the word decode), writing to
// stdout and stderr, and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	opt, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab decode: %v\n%s", err, usage)
		return ExitUsage
	}
	filter, err := ParseFilter(opt.filter)
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab decode: %v\n", err)
		return ExitUsage
	}
	out := bufio.NewWriterSize(stdout, 1<<16)
	status, err := run(opt, filter, out)
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab decode: %v\n", err)
		return ExitProblems
	}
	return status
}

func parseArgs(args []string, stderr io.Writer) (options, error) {
	var opt options
	fs := flag.NewFlagSet("rdmalab decode", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&opt.verbose, "V", false, "detail tree")
	fs.BoolVar(&opt.json, "json", false, "JSON objects")
	fs.BoolVar(&opt.rpc, "rpc", false, "RPC table")
	fs.BoolVar(&opt.check, "check", false, "anomalies")
	fs.StringVar(&opt.filter, "filter", "", "packet filter")
	maxExpand := cli.MaxExpandFlag(fs)
	file, err := cli.OneFile(fs, args)
	if err != nil {
		return opt, err
	}
	opt.maxExpand = int64(*maxExpand)
	switch {
	case opt.verbose && opt.json:
		return opt, errors.New("-V and --json do not go together")
	case opt.verbose && opt.rpc:
		return opt, errors.New("-V and --rpc do not go together")
	}
	opt.file = file
	return opt, nil
}

// run decodes the file and writes the output the options ask for.
func run(opt options, filter *Filter, out *bufio.Writer) (int, error) {
	packets := !opt.rpc && !(opt.check && !opt.verbose && !opt.json)
	var buf []byte
	var jw jsonw
	var sb strings.Builder
	// Keep only what this run prints: --json alone streams in bounded
	// memory whatever the size of the capture.
	keep := Options{DropRPCs: !opt.rpc, DropNotes: !opt.check, DropChunkData: true, MaxExpand: opt.maxExpand}
	an, ferr := ReadFileWith(opt.file, keep, func(p *Packet) error {
		if !packets || !filter.Match(p) {
			return nil
		}
		var err error
		switch {
		case opt.json:
			jw.reset()
			appendJSON(&jw, p)
			jw.b = append(jw.b, '\n')
			_, err = out.Write(jw.b)
		case opt.verbose:
			sb.Reset()
			appendTree(&sb, p)
			_, err = out.WriteString(sb.String())
		default:
			buf = appendLine(buf[:0], p)
			_, err = out.Write(buf)
		}
		return err
	})
	if an == nil {
		return ExitProblems, ferr
	}
	if opt.rpc {
		var rpcs []*RPC
		for _, r := range an.RPCs() {
			if filter.MatchRPC(r) {
				rpcs = append(rpcs, r)
			}
		}
		if opt.json {
			for _, r := range rpcs {
				jw.reset()
				appendRPCJSON(&jw, r)
				jw.b = append(jw.b, '\n')
				if _, err := out.Write(jw.b); err != nil {
					return ExitProblems, err
				}
			}
		} else if err := writeRPCTable(out, rpcs); err != nil {
			return ExitProblems, err
		}
	}
	status := ExitOK
	if opt.check {
		n, err := writeCheck(out, an.Notes())
		if err != nil {
			return ExitProblems, err
		}
		if n > 0 {
			status = ExitProblems
		}
	}
	if ferr != nil {
		return ExitProblems, ferr
	}
	return status, nil
}
