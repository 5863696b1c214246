package columnar

import (
	"time"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// PacketRow is one packet of `decode --parquet`.
type PacketRow struct {
	Capture  string    `parquet:"capture,dict"`                // the capture file, as named on the command line
	Frame    int64     `parquet:"frame"`                       // frame number, from 1
	Time     time.Time `parquet:"time,timestamp(microsecond)"` // UTC
	TimeNS   int64     `parquet:"time_ns"`                     // the same, nanoseconds since the epoch
	Rel      float64   `parquet:"rel_time"`                    // seconds since the capture's first frame
	Src      string    `parquet:"src,dict"`                    // IP address, GID or LID (as the packet list's Source column)
	Dst      string    `parquet:"dst,dict"`
	SrcPort  *int32    `parquet:"src_port,optional"` // UDP
	DstPort  *int32    `parquet:"dst_port,optional"`
	Protocol string    `parquet:"protocol,dict"` // the packet list's Protocol column (RRoCE, RPCoRDMA, NFS, ...)
	Encap    string    `parquet:"encap,dict"`    // RRoCE (RoCEv2), RoCE (RoCEv1), InfiniBand, or empty
	CapLen   int32     `parquet:"cap_len"`       // bytes captured
	WireLen  int32     `parquet:"wire_len"`      // bytes on the wire

	QP         *int64  `parquet:"qp,optional"`               // BTH destination QP
	Opcode     *int32  `parquet:"opcode,optional"`           // BTH opcode
	OpcodeName *string `parquet:"opcode_name,optional,dict"` // as Wireshark names it
	PSN        *int64  `parquet:"psn,optional"`
	AckReq     *bool   `parquet:"ack_req,optional"`
	Payload    *int32  `parquet:"payload,optional"`           // InfiniBand payload bytes
	PSNStatus  *string `parquet:"psn_status,optional,dict"`   // ok, gap, duplicate, retransmission, out of order, not checked
	ICRC       string  `parquet:"icrc,dict"`                  // good, bad, unknown (truncated), absent
	Message    *int64  `parquet:"message,optional"`           // the request message's number in its flow
	MsgKind    *string `parquet:"message_kind,optional,dict"` // SEND, RDMA WRITE, RDMA READ, ...

	XID           *int64   `parquet:"xid,optional"`              // the RPC the packet carries or moves data of
	RPC           *int64   `parquet:"rpc,optional"`              // rdmalab's number of that RPC in its capture
	RPCMessage    *string  `parquet:"rpc_message,optional,dict"` // call or reply, on the packet completing it
	Chunk         *string  `parquet:"chunk,optional,dict"`       // read, write or reply: the chunk an RDMA READ or WRITE fills
	ChunkIndex    *int32   `parquet:"chunk_index,optional"`      // its place in its list
	Segment       *int32   `parquet:"segment,optional"`          // the segment in the chunk
	SegmentOffset *int64   `parquet:"segment_offset,optional"`   // where the packet's data lands in it
	Info          string   `parquet:"info"`                      // the packet list's Info column
	Anomaly       bool     `parquet:"anomaly"`                   // a note is an anomaly (--check counts it)
	Notes         []string `parquet:"notes,list"`                // every note, "kind: text"
}

// RPCRow is one RPC of `decode --rpc --parquet`.
type RPCRow struct {
	Capture   string  `parquet:"capture,dict"`
	RPC       int64   `parquet:"rpc"` // rdmalab's number of the RPC in its capture, in call order
	XID       int64   `parquet:"xid"`
	Client    string  `parquet:"client,dict"`
	Server    string  `parquet:"server,dict"`
	Program   *int64  `parquet:"program,optional"`
	Version   *int32  `parquet:"version,optional"`
	Procedure *int32  `parquet:"procedure,optional"`
	ProcName  *string `parquet:"proc_name,optional,dict"` // READ, WRITE, COMPOUND, ... (Wireshark's names)

	CallFrame  *int64     `parquet:"call_frame,optional"`
	ReplyFrame *int64     `parquet:"reply_frame,optional"`
	CallTime   *time.Time `parquet:"call_time,optional,timestamp(microsecond)"`
	ReplyTime  *time.Time `parquet:"reply_time,optional,timestamp(microsecond)"`
	LatencyMS  *float64   `parquet:"latency_ms,optional"` // reply time - call time
	CallAcked  *int64     `parquet:"call_acked_frame,optional"`
	ReplyAcked *int64     `parquet:"reply_acked_frame,optional"`
	CallProc   *string    `parquet:"call_proc,optional,dict"`  // RDMA_MSG, RDMA_NOMSG, ...
	ReplyProc  *string    `parquet:"reply_proc,optional,dict"` // RDMA_MSG, RDMA_NOMSG, RDMA_ERROR
	Credits    *int32     `parquet:"credits,optional"`         // the reply's credit grant

	// Status is replied, no reply (the capture ends first), no call (the
	// capture starts after it) or rdma error; NFSStatus is the NFS
	// reply's status when it has one (0 is NFS3_OK / NFS4_OK).
	Status        string  `parquet:"status,dict"`
	NFSStatus     *int64  `parquet:"nfs_status,optional"`
	NFSStatusName *string `parquet:"nfs_status_name,optional,dict"`

	ReadChunks      int32 `parquet:"read_chunks"`
	WriteChunks     int32 `parquet:"write_chunks"`
	ReplyChunk      bool  `parquet:"reply_chunk"`
	BytesAdvertised int64 `parquet:"bytes_advertised"` // the segments' lengths, every chunk
	BytesMoved      int64 `parquet:"bytes_moved"`      // what RDMA READ responses and WRITEs placed in them
	RDMAReads       int32 `parquet:"rdma_reads"`
	RDMAReadBytes   int64 `parquet:"rdma_read_bytes"` // bytes the READ responses carried
	RDMAWrites      int32 `parquet:"rdma_writes"`
	RDMAWriteBytes  int64 `parquet:"rdma_write_bytes"`

	CallSummary  string   `parquet:"call_summary"`
	ReplySummary string   `parquet:"reply_summary"`
	Anomalies    []string `parquet:"anomalies,list"` // "frame N: kind: text"
}

// packetRow fills row (reusing its Notes) with p.
func packetRow(row *PacketRow, capture string, p *analysis.Packet) {
	notes := row.Notes[:0]
	cols := decode.ColumnsOf(p)
	*row = PacketRow{
		Capture: capture, Frame: int64(p.Frame), Time: p.Time.UTC(), TimeNS: p.Time.UnixNano(),
		Rel: p.Rel.Seconds(), Src: cols.Source, Dst: cols.Destination, Protocol: cols.Protocol,
		Encap: p.Encap.String(), CapLen: int32(p.CapLen), WireLen: int32(p.WireLen),
		ICRC: p.ICRC.State.String(), Info: cols.Info,
	}
	if p.UDP != nil {
		row.SrcPort, row.DstPort = ptr(int32(p.SrcPort)), ptr(int32(p.DstPort))
	}
	if b := p.BTH; b != nil {
		row.QP, row.Opcode, row.OpcodeName = ptr(int64(b.DestQP)), ptr(int32(b.Opcode)), ptr(b.Opcode.String())
		row.PSN, row.AckReq, row.Payload = ptr(int64(b.PSN)), ptr(b.A), ptr(int32(len(p.Payload())))
	}
	a := &p.Analysis
	if a.Flow != nil && p.BTH != nil {
		row.PSNStatus = ptr(a.PSN.Status.String())
	}
	if m := a.Msg; m != nil {
		row.Message, row.MsgKind = ptr(int64(m.Seq)), ptr(m.Kind.String())
	}
	var r *analysis.RPC
	if m := a.RPC; m != nil {
		row.RPCMessage = ptr(map[bool]string{true: "call", false: "reply"}[m.Call])
		r = m.RPC
		if r == nil { // RDMA_DONE
			row.XID = ptr(int64(m.Header.XID))
		}
	}
	if c := a.Chunk; c.RPC != nil {
		r = c.RPC
		row.Chunk, row.ChunkIndex, row.Segment = ptr(c.Kind.String()), ptr(int32(c.Chunk)), ptr(int32(c.Segment))
		row.SegmentOffset = ptr(int64(c.Offset))
	}
	if r != nil {
		row.XID, row.RPC = ptr(int64(r.XID)), ptr(int64(r.ID))
	}
	for _, n := range a.Notes {
		notes = append(notes, n.Kind.String()+": "+n.Text)
		row.Anomaly = row.Anomaly || n.Kind.Anomaly()
	}
	row.Notes = notes
}

// rpcRow is r as a row; anomalies are those noted on its packets.
func rpcRow(capture string, r *analysis.RPC, anomalies []analysis.Note) RPCRow {
	row := RPCRow{Capture: capture, RPC: int64(r.ID), XID: int64(r.XID),
		Client: r.Client.String(), Server: r.Server.String(),
		CallSummary: r.CallSummary, ReplySummary: r.ReplySummary, Status: "replied"}
	if r.HaveProc {
		row.Program, row.Version, row.Procedure = ptr(int64(r.Prog)), ptr(int32(r.Vers)), ptr(int32(r.Proc))
		row.ProcName = ptr(nfs.ProcName(r.Prog, r.Vers, r.Proc))
	}
	if c := r.Call; c != nil {
		row.CallFrame, row.CallTime, row.CallProc = ptr(int64(c.Frame)), ptr(c.Time.UTC()), ptr(c.Header.Proc.String())
		row.CallAcked = ackedFrame(c)
	} else {
		row.Status = "no call"
	}
	if m := r.Reply; m != nil {
		row.ReplyFrame, row.ReplyTime, row.ReplyProc = ptr(int64(m.Frame)), ptr(m.Time.UTC()), ptr(m.Header.Proc.String())
		row.ReplyAcked = ackedFrame(m)
		if m.Header.Proc == rpcrdma.ProcError {
			row.Status = "rdma error"
		} else {
			row.Credits = ptr(int32(m.Header.Credit))
		}
		if r.Call != nil {
			row.LatencyMS = ptr(float64(m.Time.Sub(r.Call.Time).Nanoseconds()) / 1e6)
		}
	} else if r.Call != nil {
		row.Status = "no reply"
	}
	if f := r.ReplyNFS; f != nil && f.HasStatus {
		row.NFSStatus = ptr(int64(f.Status))
		if f.Vers == 4 {
			row.NFSStatusName = ptr(nfs.Status4(f.Status).String())
		} else {
			row.NFSStatusName = ptr(nfs.Stat3(f.Status).String())
		}
	}
	row.ReadChunks, row.WriteChunks, row.ReplyChunk = int32(len(r.ReadChunks)), int32(len(r.WriteChunks)), r.ReplyChunk != nil
	for _, cs := range [][]*analysis.Chunk{r.ReadChunks, r.WriteChunks, {r.ReplyChunk}} {
		for _, c := range cs {
			if c == nil {
				continue
			}
			for _, s := range c.Segments {
				row.BytesAdvertised += int64(s.Length)
				row.BytesMoved += int64(s.Placed)
			}
		}
	}
	for _, m := range r.Reads {
		row.RDMAReads++
		row.RDMAReadBytes += int64(m.RespBytes)
	}
	for _, m := range r.Writes {
		row.RDMAWrites++
		row.RDMAWriteBytes += int64(m.Len)
	}
	for _, n := range anomalies {
		row.Anomalies = append(row.Anomalies, n.String())
	}
	return row
}

func ackedFrame(m *analysis.RPCMessage) *int64 {
	if m.Msg == nil || m.Msg.AckFrame == 0 {
		return nil
	}
	return ptr(int64(m.Msg.AckFrame))
}

func ptr[T any](v T) *T { return &v }
