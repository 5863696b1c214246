package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rdmalab/rdmalab/captures/decode"
	decfields "github.com/rdmalab/rdmalab/captures/decode/fields" // named apart from the -e flag's fields
	"github.com/rdmalab/rdmalab/captures/dfilter"
	"github.com/rdmalab/rdmalab/internal/cli"
)

// decodeCommand is `rdmalab decode`: its flags choose one of package
// decode's outputs.
func decodeCommand() *command {
	c := newCommand(command{
		UsageLine: "rdmalab decode [-V | --json | -T fields -e FIELD...] [--rpc] [--check] [-Y FILTER] [--filter EXPR] [-c N] [-x [-P]] [-w OUT] [--max-expand SIZE] [--follow] FILE\n       rdmalab decode -i IFACE [-f FILTER] [--all-frames] [-w FILE] [OUTPUT AND SELECTION FLAGS]\n       rdmalab decode [--rpc] --parquet OUT [-Y FILTER] [--filter EXPR] FILE...\n       rdmalab decode --fields",
		Short:     "decode a RoCE / InfiniBand / RPC-over-RDMA capture",
		Long: `
Decodes a pcap or pcapng capture (gzip-compressed or not) of RoCEv1,
RoCEv2 or native InfiniBand traffic and its RPC-over-RDMA, ONC RPC and NFS
messages, checks every ICRC and VCRC, and analyses each queue pair:
messages, PSNs, acknowledgements, RDMA READ responses, and which RPC chunk
segment every RDMA READ and WRITE fills.

FILE - reads the capture from standard input as it comes, in the memory a
file takes (a file named "-" is ./-):
  tcpdump -i eth0 -U -w - udp port 4791 | rdmalab decode -

Live capture (Linux; root, or the CAP_NET_RAW capability):
  -i IFACE       capture on an Ethernet interface and decode each frame as
                 it comes; the kernel keeps RoCE only (udp port 4791 or
                 ether proto 0x8915); Ctrl-C stops and prints the counts
                 (captured, dropped by the kernel)
  -f FILTER      a capture filter in tcpdump's syntax, kept in the kernel
                 with RoCE's: rdmalab decode -i eth0 -f 'host 192.0.2.1' --rpc
                 shows the RPCs of 192.0.2.1's RoCE.
                 host, net, port, portrange, src, dst, ether, ip, ip6,
                 arp, tcp, udp, sctp, icmp, proto, less, greater, and, or,
                 not and parentheses; what else tcpdump takes is refused
                 with its column
  --all-frames   the kernel keeps what -f says, RoCE or not
  -w FILE        save what is captured (pcapng; written whole at the end,
                 Ctrl-C included; with --check, each note is its frame's
                 comment): rdmalab decode -i eth0 -w out.pcapng
  --follow       FILE is still being written (tcpdump -w FILE): at its end
                 wait for more, as tail -f does, until Ctrl-C

Output (one of):
  (default)      one line per packet, as tshark prints them
  -V             a detail tree per packet
  --json         one JSON object per packet per line, with Wireshark's field
                 names (infiniband.bth.opcode, infiniband.cm.req.localqpn,
                 rpcordma.xid, rpc.xid, nfs.procedure_v3, nfs.offset3, ...)
                 and rdmalab's under rdmalab. (rdmalab.icrc_ok,
                 rdmalab.msg.kind, rdmalab.psn_status, rdmalab.chunk.xid,
                 rdmalab.note.text, ...); it streams, in bounded memory
  -T fields      the values of the fields -e names, one line per packet,
                 as tshark -T fields prints them
  -e FIELD       a field -T fields prints (repeat it for more)
  -E OPT=VALUE   a -T fields option: header=y, separator=/t|/s|C,
                 occurrence=f|l|a, aggregator=,|/s|C, quote=d|s|n
  --fields       the list of fields (for -Y, -e and --json): name, type,
                 Wireshark or rdmalab, what it is
  --rpc          a table per RPC: call, chunks, RDMA READs and WRITEs,
                 reply, acknowledgements, latency (with --json: one object
                 per RPC)
  --check        the anomalies with their frame numbers; the exit status is
                 1 when there is any (combines with the others)
  -w OUT         the packets read from FILE (those -Y or --filter select)
                 written to OUT as pcapng; with --check each note on a packet is its
                 comment, which Wireshark shows and frame.comment finds:
                 tshark -r OUT -Y 'frame.comment contains "rdmalab"'
  --parquet OUT  a Parquet file for DuckDB, Spark or pandas instead of text:
                 one row per packet, or with --rpc one row per RPC, of
                 every FILE (a capture column names each; a quoted glob
                 is expanded: 'captures/*.pcap'); the columns are listed
                 in docs/parquet.md

Selection:
  -Y FILTER      packets matching a display filter with Wireshark's syntax
                 and field names: 'infiniband.bth.psn >= 100 && ip.src ==
                 192.0.2.1', 'rpcordma.xid == 0x47dbd665', 'nfs',
                 'rdmalab.anomaly', 'rdmalab.icrc_bad', 'infiniband.bth.opcode in {4, 17}';
                 and, as in Wireshark 4.0, slices, functions, arithmetic,
                 bytes of protocols and layers: 'eth.src[0:3] == 52:54:00',
                 'len(infiniband) > 1000', 'infiniband.bth.opcode & 0x10',
                 'count(rpcordma.rdma_handle) > 2', 'infiniband.bth contains
                 00:00:00:11', 'ip.src#1 == 192.0.2.1' (see decode --fields)
  --filter EXPR  packets matching every term (commas or spaces between):
                   qp=N (to or from QP N), opcode=N|NAME (4, 0x11,
                   send-only, "RC Acknowledge"), xid=N (the packets of one RPC),
                   rpcs (the calls and replies), anomalies;
                 "|" lists alternatives: opcode=4|23; anything else is read
                 as a display filter (--filter rpc). The terms are short for
                 a display filter, which decode prints on stderr:
                 --filter "qp=17" is -Y 'infiniband.bth.destqp == 17 || ...'
  -c N           read only the first N frames
  -x             a hex dump of each packet (alone: instead of its line, as
                 tshark -x prints it; with -V under its tree)
  -P             with -x, each packet's line above its dump (tshark -P -x)

Limits:
  ` + cli.MaxExpandHelp + `

Exit status: 0 fine, 1 anomalies (--check) or a damaged or unreadable file,
2 usage error.
`,
	})
	var o decode.Output
	c.Flag.BoolVar(&o.Tree, "V", false, "a detail tree per packet")
	c.Flag.BoolVar(&o.JSON, "json", false, "one JSON object per packet, or per RPC with --rpc")
	c.Flag.BoolVar(&o.RPCs, "rpc", false, "a table per RPC")
	c.Flag.BoolVar(&o.Check, "check", false, "the anomalies")
	filter := c.Flag.String("filter", "", "packets matching every term")
	display := c.Flag.String("Y", "", "packets matching a display filter")
	format := c.Flag.String("T", "", "fields: the values of -e's fields")
	var fields, fieldOpts listFlag
	c.Flag.Var(&fields, "e", "a field -T fields prints")
	c.Flag.Var(&fieldOpts, "E", "a -T fields option")
	c.Flag.IntVar(&o.Count, "c", 0, "read only the first N frames")
	c.Flag.BoolVar(&o.Hex, "x", false, "a hex dump of each packet")
	c.Flag.BoolVar(&o.Summary, "P", false, "with -x, each packet's line above its dump")
	list := c.Flag.Bool("fields", false, "the list of fields")
	parquetOut := c.Flag.String("parquet", "", "a Parquet file of the packets, or of the RPCs with --rpc")
	maxExpand := cli.MaxExpandFlag(c.Flag)
	var lf liveFlags
	lf.register(c.Flag)
	c.Run = func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		if *list {
			if len(args) > 0 {
				return c.usageError(stderr, "--fields takes no file")
			}
			if err := decode.WriteFieldList(stdout); err != nil {
				fmt.Fprintf(stderr, "rdmalab decode: %v\n", err)
				return exitFailed
			}
			return exitOK
		}
		if err := lf.check(args); err != nil {
			return c.usageError(stderr, "%v", err)
		}
		var file string
		var files []string
		var err error
		switch {
		case *parquetOut != "" && (lf.iface != "" || lf.follow):
			return c.usageError(stderr, "--parquet reads capture files: not with -i or --follow (decode -i IFACE -w FILE, then --parquet FILE)")
		case *parquetOut != "":
			files, err = parquetInputs(args)
		case lf.iface == "":
			file, err = cli.OneFile(args)
		}
		switch {
		case err != nil:
			return c.usageError(stderr, "%v", err)
		case lf.save != "" && *parquetOut != "":
			return c.usageError(stderr, "-w writes packets, --parquet rows: one at a time")
		case *parquetOut != "" && (o.Tree || o.JSON || *format != "" || o.Hex):
			return c.usageError(stderr, "--parquet writes rows, not text: it does not go with -V, --json, -T fields or -x")
		case o.Tree && o.JSON:
			return c.usageError(stderr, "-V and --json do not go together")
		case o.Tree && o.RPCs:
			return c.usageError(stderr, "-V and --rpc do not go together")
		case *format != "" && *format != "fields":
			return c.usageError(stderr, "-T %s: only -T fields is supported (--json for JSON, -V for the tree)", *format)
		case *format == "" && (len(fields) > 0 || len(fieldOpts) > 0):
			return c.usageError(stderr, "-e and -E go with -T fields")
		case *format == "fields" && (o.Tree || o.JSON || o.RPCs):
			return c.usageError(stderr, "-T fields does not go with -V, --json or --rpc")
		case o.Count < 0:
			return c.usageError(stderr, "-c %d: want a count of frames", o.Count)
		case o.Count == 0 && flagSet(c.Flag, "c"):
			// as tshark: no count means every frame, -c 0 is a mistake
			return c.usageError(stderr, "-c 0: the packet count is zero (leave -c out to read every frame)")
		case *display != "" && o.RPCs:
			return c.usageError(stderr, "-Y selects packets, not RPCs: --filter xid=N selects an RPC")
		}
		if *format == "fields" {
			if o.Fields, err = decode.NewFieldsOutput(fields, fieldOpts); err != nil {
				return c.usageError(stderr, "%v", err)
			}
		}
		if decfields.IsShortForm(*filter) {
			if o.Filter, err = decfields.CompileSelection(*filter); err != nil {
				fmt.Fprintf(stderr, "rdmalab decode: %v\n", err)
				return exitUsage
			}
			if o.Filter.Expr != "" && !o.RPCs {
				// Sugar that says what it means, where the packets are not.
				fmt.Fprintf(stderr, "rdmalab decode: --filter %q is -Y '%s'\n", *filter, o.Filter.Expr)
			}
		} else if *display != "" {
			return c.usageError(stderr, "--filter %s is a display filter: give it to -Y alone, or join the two with &&", *filter)
		} else if o.RPCs && *filter != "" {
			return c.usageError(stderr, "--filter %s is a display filter, which selects packets, not RPCs: --filter xid=N selects an RPC", *filter)
		} else {
			*display = *filter
		}
		if *display != "" {
			if o.Display, err = decfields.CompileDisplayFilter(*display); err != nil {
				return filterError(stderr, err)
			}
		}
		o.MaxExpand = int64(*maxExpand)
		switch {
		case *parquetOut != "":
			return writeParquet(*parquetOut, files, o, stdin, stdout, stderr)
		case lf.iface != "":
			return decodeLive(ctx, lf, o, stdout, stderr)
		case lf.follow:
			return decodeFollow(ctx, file, o, stdout, stderr)
		}
		var anomalies int
		var copied *os.File // with -w, standard input as it was read, to read again
		if file == "-" && lf.save != "" {
			if copied, err = os.CreateTemp("", "rdmalab-stdin-*.pcap"); err != nil {
				fmt.Fprintf(stderr, "rdmalab decode: -w: %v\n", err)
				return exitFailed
			}
			defer os.Remove(copied.Name())
			defer copied.Close()
			stdin = io.TeeReader(stdin, copied)
		}
		if file == "-" {
			// Ctrl-C reaches every process of a pipeline: the first lets
			// the writer end the stream, and what it wrote is decoded.
			sctx, stop := interrupted(ctx)
			context.AfterFunc(sctx, stop)
			o.Flush = isTerminal(stdout) // each packet as it comes, on a terminal
			anomalies, err = decode.WriteStream(stdout, stdin, "standard input", o)
			stop()
		} else {
			anomalies, err = decode.Write(stdout, file, o)
		}
		if err != nil {
			fmt.Fprintf(stderr, "rdmalab decode: %v\n", err)
			return exitFailed
		}
		if lf.save != "" {
			in := file
			if copied != nil {
				in = copied.Name()
			}
			if err := saveAnnotated(lf.save, in, o, stderr); err != nil {
				fmt.Fprintf(stderr, "rdmalab decode: -w: %v\n", err)
				return exitFailed
			}
		}
		if anomalies > 0 {
			return exitFailed
		}
		return exitOK
	}
	return c
}

// listFlag is a flag that may be given several times (-e, -E).
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// filterError prints a display filter's mistake with a caret under its
// column, as tshark does, and returns the usage status.
func filterError(stderr io.Writer, err error) int {
	var e *dfilter.Error
	if errors.As(err, &e) {
		fmt.Fprintf(stderr, "rdmalab decode: -Y: %v\n%s\n", e, indent(e.Caret(), "    "))
	} else {
		fmt.Fprintf(stderr, "rdmalab decode: -Y: %v\n", err)
	}
	return exitUsage
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

// flagSet says whether the flag called name was given.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
