package repl

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// maxIO is the largest call the presets take (the engine's limit).
const maxIO = 16 << 20

func chunkFlags(inline bool) []Flag {
	f := []Flag{
		{Name: "segments", Value: "N", Usage: "split the chunk into N segments (1..64)", Complete: completeValues("1", "2", "3", "4", "8")},
		{Name: "pageoff", Value: "OFF", Usage: "the client buffers start OFF bytes into a page (0..4095)", Complete: completeValues("0", "100", "512", "4000")},
	}
	if inline {
		f = append(f, Flag{Name: "inline", Usage: "send the data inline when it fits the inline threshold"})
	}
	return f
}

func clientCommands() []*Command {
	sizeArg := Arg{Name: "SIZE", Complete: completeSizes}
	return []*Command{
		{
			Name: "write", Group: GroupClient, Hint: true,
			Usage: "write SIZE [--segments N] [--pageoff OFF] [--inline]",
			Short: "NFSv3 WRITE: the data goes in a Read chunk",
			Long: "The client registers a buffer holding SIZE bytes of pattern data, advertises it as a\n" +
				"Read chunk at the XDR position of the WRITE's data, and posts its Send. Nothing runs on\n" +
				"the server until you complete the Send and step or continue its threads.\n" +
				"SIZE takes k and M suffixes (powers of 1024): 4096, 128k, 1M.",
			Example: "write 1M\nwrite 10000 --segments 3 --pageoff 100",
			Kernel:  []*trace.Func{kernel.RpcrdmaMarshalReq, kernel.SvcRdmaProcessReadList, kernel.SvcRdmaBuildReadSegment},
			Args:    []Arg{sizeArg}, Flags: chunkFlags(true),
			Run: func(c *Ctx, a Args, out io.Writer) error {
				return c.preset(a, out, "WRITE", 0, engine.PresetWrite)
			},
		},
		{
			Name: "read", Group: GroupClient, Hint: true,
			Usage: "read SIZE [--segments N] [--pageoff OFF] [--inline] [--chunk LEN]",
			Short: "NFSv3 READ: the data comes back by RDMA Write",
			Long: "The client provisions a Write chunk of SIZE bytes; the server's reply moves the file\n" +
				"data into it with RDMA Write (svc_rdma_send_write_chunk), then Sends the reply. Write\n" +
				"first so the file holds data. --chunk LEN provisions a Write chunk of LEN bytes\n" +
				"instead: shorter than the data, svc_rdma_result_payload refuses it with -E2BIG.",
			Example: "read 128k\nread 1M --segments 3 --pageoff 100\nread 20000 --chunk 8192",
			Kernel:  []*trace.Func{kernel.SvcRdmaResultPayload, kernel.SvcRdmaSendWriteChunk, kernel.SvcRdmaBuildWrites},
			Args:    []Arg{sizeArg},
			Flags: append(chunkFlags(true), Flag{Name: "chunk", Value: "LEN",
				Usage: "a Write chunk of LEN bytes, whatever SIZE (shorter: -E2BIG)", Complete: completeSizes}),
			Run: func(c *Ctx, a Args, out io.Writer) error {
				return c.preset(a, out, "READ", 0, engine.PresetRead)
			},
		},
		{
			Name: "readdir", Group: GroupClient, Hint: true,
			Usage: "readdir SIZE [--segments N] [--pageoff OFF]",
			Short: "NFSv3 READDIR with a Reply chunk (RDMA_NOMSG reply)",
			Long: "The reply is too large for a Send, so the client provisions a Reply chunk; the server\n" +
				"writes the whole reply into it and Sends only a transport header (RDMA_NOMSG).",
			Example: "readdir 16k\nreaddir 16k --segments 2",
			Kernel:  []*trace.Func{kernel.SvcRdmaPrepareReplyChunk, kernel.SvcRdmaSendReplyMsg},
			Args:    []Arg{sizeArg}, Flags: chunkFlags(false),
			Run: func(c *Ctx, a Args, out io.Writer) error {
				return c.preset(a, out, "READDIR", 512, engine.PresetReaddir)
			},
		},
		{
			Name: "longcall", Aliases: []string{"long"}, Group: GroupClient, Hint: true,
			Usage: "longcall SIZE [--segments N] [--pageoff OFF]",
			Short: "a WRITE sent whole in a position-zero Read chunk",
			Long: "The whole RPC call travels in a position-zero Read chunk and the Send carries only\n" +
				"the transport header (RDMA_NOMSG): svc_rdma_read_special pulls it.",
			Example: "longcall 20000 --segments 2",
			Kernel:  []*trace.Func{kernel.SvcRdmaReadCallChunk, kernel.SvcRdmaReadSpecial},
			Args:    []Arg{sizeArg}, Flags: chunkFlags(false),
			Run: func(c *Ctx, a Args, out io.Writer) error {
				return c.preset(a, out, "long call", 0, engine.PresetLongCall)
			},
		},
		callCommand(),
	}
}

// preset runs one of the engine's NFS-shaped presets.
func (c *Ctx) preset(a Args, out io.Writer, what string, lo int64, p engine.Preset) error {
	n, err := engine.ParseSize("SIZE", a.Pos[0], lo, maxIO)
	if err != nil {
		return err
	}
	var o engine.ChunkOpts
	if v, ok := a.Flag("segments"); ok {
		k, err := engine.ParseInt("--segments", v, 1, 64)
		if err != nil {
			return err
		}
		o.Segments = int(k)
	}
	if v, ok := a.Flag("pageoff"); ok {
		k, err := engine.ParseInt("--pageoff", v, 0, 4095)
		if err != nil {
			return err
		}
		o.PageOff = int(k)
	}
	o.Inline = a.Has("inline")
	if v, ok := a.Flag("chunk"); ok {
		k, err := engine.ParseSize("--chunk", v, 1, maxIO)
		if err != nil {
			return err
		}
		o.ChunkLen = k
	}
	k, err := c.S.lab.Preset(p, n, o)
	if err != nil {
		return fmt.Errorf("%s: %w", strings.ToLower(what), err)
	}
	// An empty buffer cannot be registered as a chunk (ib_map_mr_sg maps
	// nothing), so the engine sends these inline, as the Linux client does.
	switch {
	case n == 0 && what == "WRITE":
		fmt.Fprintln(out, "note: a WRITE of 0 bytes has no data for a Read chunk: it goes inline, as the Linux client sends it (rpcrdma_marshal_req)")
	case n == 0 && what == "READ":
		fmt.Fprintln(out, "note: a READ of 0 bytes needs no Write chunk: its reply fits inline, as the Linux client expects (rpcrdma_marshal_req)")
	case o.Inline && len(k.Segs) > 0:
		inlineRefused(out, what, n, o, c.S.lab.Set.InlineThreshold)
	}
	writeCallChunks(out, chunksOf(k))
	return nil
}

func callCommand() *Command {
	return &Command{
		Name: "call", Group: GroupClient, Hint: true,
		Usage: "call [--read POS:SEGS]... [--write SEGS]... [--reply SEGS] [--data SIZE]",
		Short: "a custom call: Read list, Write list, Reply chunk",
		Long: "The message is an NFSv3 WRITE of pattern data, sized so that every position asked for\n" +
			"falls inside it (or --data SIZE bytes). SEGS is LEN[@PAGEOFF][,LEN[@PAGEOFF]...]: each\n" +
			"segment's length and the page offset of its buffer. POS is an XDR position in the\n" +
			"message, or `data` for where the WRITE's data begins (a well-formed WRITE).\n" +
			"--read may repeat (one Read chunk each), as may --write (one Write chunk each).\n" +
			fmt.Sprintf("A call carries at most %d MiB in all (its message and every chunk; Read chunks that\n"+
				"overlap count once each), and the calls not yet answered %d MiB together.", engine.MaxCallBytes>>20, engine.MaxLiveBytes>>20),
		Example: "call --read data:4096,4096@100\n" +
			"call --read data:8192 --read 300:100 --reply 4096\n" +
			"call --read 0:64 --data 1000",
		Kernel: []*trace.Func{kernel.RpcrdmaMarshalReq, kernel.SvcRdmaXdrDecodeReq, kernel.SvcRdmaReadMultipleChunks},
		Flags: []Flag{
			{Name: "read", Value: "POS:SEGS", Repeat: true, Usage: "a Read chunk at XDR position POS (or `data`) of these segments",
				Complete: completeValues("data:4096", "data:8192,8192", "data:4096@100")},
			{Name: "write", Value: "SEGS", Repeat: true, Usage: "a Write chunk of these segments", Complete: completeValues("4096", "8192,8192")},
			{Name: "reply", Value: "SEGS", Usage: "a Reply chunk of these segments", Complete: completeValues("4096", "16384")},
			{Name: "data", Value: "SIZE", Usage: "the WRITE's data length (default: enough for the positions)", Complete: completeSizes},
		},
		Run: runCall,
	}
}

// chunkLen is how many bytes the call's Read chunk at pos carries.
func chunkLen(k engine.ClientCall, pos int) int {
	n := 0
	for _, s := range k.Segs {
		if strings.HasPrefix(s.Kind, "read chunk") && int(s.Position) == pos {
			n += int(s.Length)
		}
	}
	return n
}

func runCall(c *Ctx, a Args, out io.Writer) error {
	l := c.S.lab
	custom := engine.Custom{Data: -1}
	for i, v := range a.All("read") {
		p, segs, ok := strings.Cut(v, ":")
		if !ok {
			return fmt.Errorf("--read %q: want POS:SEGS, such as data:4096 or 124:4096,4096@100", v)
		}
		r := engine.CustomRead{AtData: p == "data"}
		if !r.AtData {
			n, err := engine.ParseInt(fmt.Sprintf("read chunk %d position", i), p, 0, maxIO)
			if err != nil {
				return err
			}
			r.Pos = int(n)
		}
		var err error
		if r.Segments, _, err = engine.ParseSegs(fmt.Sprintf("read chunk %d", i), segs); err != nil {
			return err
		}
		custom.Reads = append(custom.Reads, r)
	}
	if v, ok := a.Flag("data"); ok {
		var err error
		if custom.Data, err = engine.ParseSize("--data", v, 0, maxIO); err != nil {
			return err
		}
	}
	for i, v := range a.All("write") {
		segs, _, err := engine.ParseSegs(fmt.Sprintf("write chunk %d", i), v)
		if err != nil {
			return err
		}
		custom.Writes = append(custom.Writes, segs)
	}
	if v, ok := a.Flag("reply"); ok {
		segs, _, err := engine.ParseSegs("reply chunk", v)
		if err != nil {
			return err
		}
		custom.Reply = segs
	}
	k, err := l.CustomCall(custom)
	if err != nil {
		return fmt.Errorf("call: %w", err)
	}
	fmt.Fprintf(out, "the WRITE's data starts at XDR position %d; the message is %d bytes\n", l.WriteDataPos(), k.MsgLen)
	if k.Proc == rpcrdma.ProcNoMsg {
		fmt.Fprintln(out, "a position-zero chunk: the call goes as RDMA_NOMSG; the chunk carries the\n  message less the other Read chunks")
	}
	for i, r := range k.ReadChunks {
		if got := chunkLen(k, r.Pos); got > r.Len && r.Pos != 0 {
			fmt.Fprintf(out, "read chunk %d: its %d bytes end inside the WRITE's data, not at its XDR pad:\n"+
				"  the server rounds a lone chunk up to %d when it puts it back, so the chunk\n  carries those %d message bytes too\n",
				i, r.Len, got, got-r.Len)
		}
	}
	writeCallChunks(out, chunksOf(k))
	return nil
}

// inlineRefused says why --inline still moved the data in a chunk: the
// call (or the reply) with the data would not fit the inline threshold,
// or --chunk asked for a Write chunk.
func inlineRefused(out io.Writer, what string, n int, o engine.ChunkOpts, threshold int) {
	switch {
	case o.ChunkLen > 0:
		fmt.Fprintf(out, "note: --inline is overridden by --chunk: the READ gets the %d-byte Write chunk asked for\n", o.ChunkLen)
	case what == "READ":
		fmt.Fprintf(out, "note: --inline: a reply with %d bytes of data does not fit the %d-byte inline threshold, so the data goes in a Write chunk (set inline_threshold to change it)\n", n, threshold)
	default:
		fmt.Fprintf(out, "note: --inline: a %s with %d bytes of data does not fit the %d-byte inline threshold, so the data goes in a Read chunk (set inline_threshold to change it)\n", what, n, threshold)
	}
}
