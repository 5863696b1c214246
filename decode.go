package main

import (
	"context"
	"fmt"
	"io"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/internal/cli"
)

// decodeCommand is `rdmalab decode`: its flags choose one of package
// decode's outputs.
func decodeCommand() *command {
	c := newCommand(command{
		UsageLine: "rdmalab decode [-V | --json] [--rpc] [--check] [--filter EXPR] [--max-expand SIZE] FILE",
		Short:     "decode a RoCE / InfiniBand / RPC-over-RDMA capture",
		Long: `
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
`,
	})
	var o decode.Output
	c.Flag.BoolVar(&o.Tree, "V", false, "a detail tree per packet")
	c.Flag.BoolVar(&o.JSON, "json", false, "one JSON object per packet, or per RPC with --rpc")
	c.Flag.BoolVar(&o.RPCs, "rpc", false, "a table per RPC")
	c.Flag.BoolVar(&o.Check, "check", false, "the anomalies")
	filter := c.Flag.String("filter", "", "packets matching every comma-separated term")
	maxExpand := cli.MaxExpandFlag(c.Flag)
	c.Run = func(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
		file, err := cli.OneFile(args)
		switch {
		case err != nil:
			return c.usageError(stderr, "%v", err)
		case o.Tree && o.JSON:
			return c.usageError(stderr, "-V and --json do not go together")
		case o.Tree && o.RPCs:
			return c.usageError(stderr, "-V and --rpc do not go together")
		}
		if o.Filter, err = decode.ParseFilter(*filter); err != nil {
			fmt.Fprintf(stderr, "rdmalab decode: %v\n", err)
			return exitUsage
		}
		o.MaxExpand = int64(*maxExpand)
		anomalies, err := decode.Write(stdout, file, o)
		if err != nil {
			fmt.Fprintf(stderr, "rdmalab decode: %v\n", err)
			return exitFailed
		}
		if anomalies > 0 {
			return exitFailed
		}
		return exitOK
	}
	return c
}
