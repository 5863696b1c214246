package svcrdma

// The receive path (svc_rdma_recvfrom.c, seed era).

import (
	"errors"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// HandleRecvWC is svc_rdma_wc_receive: a Receive completed.
func (x *Xprt) HandleRecvWC(t *sched.Task, wc verbs.WC) {
	rc, ok := x.recvByID[wc.WRID]
	if !ok {
		t.Point(kernel.IbProcessCq, "wr_id", wc.WRID, "note", "unknown receive")
		return
	}
	delete(x.recvByID, wc.WRID)
	x.recvPosted--
	defer t.Call(kernel.SvcRdmaWcReceive, "recv", rc.ID, "status", wc.Status, "byte_len", wc.ByteLen)(nil)
	if wc.Status != verbs.StatusSuccess {
		if wc.Status == verbs.StatusWRFlushErr {
			t.Point(kernel.TraceSvcrdmaWcRecvFlush, "recv", rc.ID)
		} else {
			t.Point(kernel.TraceSvcrdmaWcRecvErr, "recv", rc.ID, "status", wc.Status)
		}
		x.recvCtxtPut(t, rc)
		x.deferredClose(t)
		return
	}
	// svc_rdma_refresh_recvs keeps sc_max_requests Receives posted.
	if x.recvPosted < x.FCCredits && !x.Close {
		if err := x.postRecv(); err != nil {
			t.Pointf(kernel.SvcRdmaRefreshRecvs, "%v", err)
		}
	}
	rc.ByteLen = int(wc.ByteLen)
	if wc.WithInv {
		t.Point(kernel.IbWcWithInv, "rkey", hex32(wc.InvalidatedRKey))
	}
	x.recvQ = append(x.recvQ, rc)
	x.Data = true
	t.Point(kernel.TraceSvcrdmaWcRecv, "recv", rc.ID, "byte_len", rc.ByteLen, "queued", len(x.recvQ))
}

// recvCtxtPut is svc_rdma_recv_ctxt_put: release the pages it holds and
// make it reusable.
func (x *Xprt) recvCtxtPut(t *sched.Task, rc *RecvCtxt) {
	if len(rc.CC.RWCtxts) > 0 {
		x.ccRelease(t, &rc.CC, FromDevice)
	}
	for i, r := range x.reads {
		if r == rc {
			x.reads = append(x.reads[:i], x.reads[i+1:]...)
			break
		}
	}
	n := 0
	for i := 0; i < rc.PageCount && i < len(rc.Pages); i++ {
		x.putPage(rc.Pages[i])
		n++
	}
	// rc_pages is an array in the ctxt: keep it for the next call.
	clear(rc.Pages)
	rc.Pages, rc.PageCount = rc.Pages[:0], 0
	rc.CallPCL, rc.ReadPCL, rc.WritePCL, rc.ReplyPCL = PCL{}, PCL{}, PCL{}, PCL{}
	rc.CC.SQECount = 0
	rc.CurResult, rc.InvRKey = 0, 0
	x.recvFree = append(x.recvFree, rc)
	t.Point(kernel.SvcRdmaRecvCtxtPut, "recv", rc.ID, "pages_released", n)
}

// HasWork reports XPT_DATA: a call or a finished Read waits for a thread.
func (x *Xprt) HasWork() bool { return len(x.recvQ) > 0 || len(x.ReadComplete) > 0 }

// xdrDecodeReq is svc_rdma_xdr_decode_req: check the transport header and
// build the parsed chunk lists; 0 means "drop silently".
func (x *Xprt) xdrDecodeReq(t *sched.Task, rq *Rqst, rc *RecvCtxt) (hdrLen int, err error) {
	ret := t.CallV(kernel.SvcRdmaXdrDecodeReq, "byte_len", rc.ByteLen)
	defer func() {
		if err != nil {
			ret(err)
		} else {
			ret(hdrLen)
		}
	}()
	buf := rc.Buf.Data[:rc.ByteLen]
	if len(buf) >= 8 {
		rc.XID = be32(buf[0:])
		rc.Vers = be32(buf[4:])
	}
	var h rpcrdma.Header
	opt := rpcrdma.KernelOptions(x.MaxPages, x.PageSize, x.Beh.New2026())
	opt.RejectZeroSegCount = !x.Beh.Has(B7)
	opt.CheckChunkPositions = !x.Beh.Has(B5)
	n, derr := h.Decode(buf, opt)
	if derr != nil {
		var de *rpcrdma.DecodeError
		if errors.As(derr, &de) && de.Kind == rpcrdma.ErrVersion {
			t.Point(kernel.TraceSvcrdmaDecodeBadvers, "xid", hex32(rc.XID), "vers", rc.Vers)
			return 0, errProtoNoSp
		}
		t.Pointf(kernel.TraceSvcrdmaDecodeShortErr, "%v", derr)
		return 0, errInval
	}
	rc.MsgType = uint32(h.Proc)
	switch h.Proc {
	case rpcrdma.ProcMsg, rpcrdma.ProcNoMsg:
	case rpcrdma.ProcDone, rpcrdma.ProcError:
		t.Point(kernel.TraceSvcrdmaDecodeDrop, "xid", hex32(rc.XID), "proc", h.Proc)
		return 0, nil
	default:
		t.Point(kernel.TraceSvcrdmaDecodeBadproc, "xid", hex32(rc.XID), "proc", h.Proc)
		return 0, errInval
	}
	rc.CallPCL = pclAllocCall(h.ReadList)
	rc.ReadPCL = pclAllocRead(h.ReadList)
	rc.WritePCL = pclAllocWrite(h.WriteList)
	if h.ReplyChunk != nil {
		rc.ReplyPCL = pclAllocWrite([]rpcrdma.WriteChunk{*h.ReplyChunk})
	} else {
		rc.ReplyPCL = PCL{}
	}
	rc.CurResult = 0
	rc.HdrLen = n
	rq.Arg.Head.Off += n
	rq.Arg.Head.Len -= n
	rq.Arg.Len -= n
	t.Point(kernel.TraceSvcrdmaDecodeRqst, "xid", hex32(rc.XID), "proc", h.Proc, "hdrlen", n,
		"call_chunks", rc.CallPCL.Count(), "read_chunks", rc.ReadPCL.Count(),
		"write_chunks", rc.WritePCL.Count(), "reply_chunk", rc.ReplyPCL.Count())
	return n, nil
}

// getInvRKey is svc_rdma_get_inv_rkey: remote invalidation is used only
// when every segment of the call names the same R_key.
func (x *Xprt) getInvRKey(t *sched.Task, rc *RecvCtxt) {
	rc.InvRKey = 0
	if !x.Cfg.SndWInv {
		return
	}
	var key uint32
	for _, p := range []*PCL{&rc.CallPCL, &rc.ReadPCL, &rc.WritePCL, &rc.ReplyPCL} {
		for _, c := range p.Chunks {
			if len(c.Segments) == 0 && x.Beh.Has(B7) {
				x.fault(t, "out-of-bounds read", "pcl_for_each_segment walks segments[segcount-1] of a chunk with segcount 0 (B7)")
			}
			for _, s := range c.Segments {
				if key == 0 {
					key = s.Handle
				} else if s.Handle != key {
					t.Pointf(kernel.SvcRdmaGetInvRkey, "more than one R_key: no remote invalidation")
					return
				}
			}
		}
	}
	rc.InvRKey = key
	t.Point(kernel.SvcRdmaGetInvRkey, "inv_rkey", hex32(key))
}

// Recvfrom is svc_rdma_recvfrom: finish a call whose Reads completed, or
// take the next Receive, decode it and start its Reads. It returns the
// length of the RPC message ready in rq.Arg, or 0.
func (x *Xprt) Recvfrom(t *sched.Task, rq *Rqst) (n int) {
	ret := t.CallV(kernel.SvcRdmaRecvfrom, "thread", rq.Name)
	defer func() { ret(n) }()
	rq.RespagesIdx, rq.NextPageIdx = 0, 0
	rq.Ctxt, rq.Decoding = nil, nil
	rq.ReplyPos = 0
	if len(x.ReadComplete) > 0 {
		rc := x.ReadComplete[0]
		x.ReadComplete = x.ReadComplete[1:]
		x.readComplete(t, rq, rc)
		return x.recvfromComplete(rq, rc)
	}
	if len(x.recvQ) == 0 {
		x.Data = false
		return 0
	}
	rc := x.recvQ[0]
	x.recvQ = x.recvQ[1:]
	x.Data = x.HasWork()
	rq.Decoding = rc
	rq.Arg = XdrBuf{Head: Kvec{Page: rc.Buf, Off: 0, Len: rc.ByteLen}, Len: rc.ByteLen}
	hdr, err := x.xdrDecodeReq(t, rq, rc)
	if err != nil {
		x.Counters.RecvErrors++
		x.sendError(t, rc, err)
		x.recvCtxtPut(t, rc)
		return 0
	}
	if hdr == 0 {
		x.recvCtxtPut(t, rc)
		return 0
	}
	x.getInvRKey(t, rc)
	if !rc.CallPCL.IsEmpty() || !rc.ReadPCL.IsEmpty() {
		rc.SavedArg = rq.Arg
		if _, err := x.processReadList(t, rq, rc); err != nil {
			x.Counters.RecvErrors++
			if err == errInval {
				x.sendError(t, rc, err)
			}
			x.recvCtxtPut(t, rc)
			x.deferredClose(t)
			return 0
		}
		t.Pointf(kernel.SvcRdmaRecvfrom, "Reads posted: the call waits for their completion")
		return 0
	}
	return x.recvfromComplete(rq, rc)
}

// recvfromComplete is the "complete" label of svc_rdma_recvfrom.
func (x *Xprt) recvfromComplete(rq *Rqst, rc *RecvCtxt) int {
	rq.Ctxt = rc
	rq.XID = rc.XID
	rq.NextPageIdx = rq.RespagesIdx
	return rq.Arg.Len
}

// readComplete is svc_rdma_read_complete: install the pages the Reads
// filled as rq_pages and rebuild rq_arg around them.
func (x *Xprt) readComplete(t *sched.Task, rq *Rqst, rc *RecvCtxt) {
	defer t.Call(kernel.SvcRdmaReadComplete, "recv", rc.ID, "page_count", rc.PageCount, "readbytes", rc.ReadBytes)(nil)
	for i := 0; i < rc.PageCount && i < len(rq.Pages) && i < len(rc.Pages); i++ {
		x.putPage(rq.Pages[i])
		rq.Pages[i] = rc.Pages[i]
	}
	pc := rc.PageCount
	// rc_pages is an array in the ctxt: keep it for the next call.
	clear(rc.Pages)
	rc.Pages, rc.PageCount = rc.Pages[:0], 0
	rq.Arg = rc.SavedArg
	if rc.CallPCL.IsEmpty() && rc.ReadPCL.Count() == 1 {
		// svc_rdma_read_complete_one: the data item goes between head and tail.
		c := rc.ReadPCL.First()
		inline := rq.Arg.Head
		pos := int(c.Position)
		if pos > inline.Len {
			x.fault(t, "length underflow", "read chunk position %d is past the %d inline bytes: tail.iov_len = %d - %d wraps and the XDR decoder reads past the Receive buffer (B5)", pos, inline.Len, inline.Len, pos)
		}
		rq.Arg.Head = Kvec{Page: inline.Page, Off: inline.Off, Len: pos}
		rq.Arg.Tail = Kvec{Page: inline.Page, Off: inline.Off + pos, Len: inline.Len - pos}
		rq.Arg.Pages = rq.Pages
		rq.Arg.PageBase = 0
		rq.Arg.PageLen = align4(int(c.Length))
		rq.Arg.Len += align4(int(c.Length))
		t.Point(kernel.SvcRdmaReadCompleteOne, "head", pos, "page_len", rq.Arg.PageLen, "tail", rq.Arg.Tail.Len, "len", rq.Arg.Len)
	} else {
		// svc_rdma_read_complete_multiple, or _pzrc for a call chunk: the
		// two do the same, the message is in the pages.
		name := kernel.SvcRdmaReadCompleteMultiple
		if !rc.CallPCL.IsEmpty() {
			name = kernel.SvcRdmaReadCompletePzrc
		}
		rq.Arg.Len += rc.ReadBytes
		hl := min(x.PageSize, rc.ReadBytes)
		rq.Arg.Head = Kvec{Page: rq.Pages[0], Off: 0, Len: hl}
		rq.Arg.Pages = rq.Pages[1:]
		rq.Arg.PageBase = 0
		rq.Arg.PageLen = rc.ReadBytes - hl
		rq.Arg.Tail = Kvec{}
		t.Point(name, "head", hl, "page_len", rq.Arg.PageLen, "len", rq.Arg.Len, "pages", pc)
	}
	rq.RespagesIdx = pc
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
