package svcrdma

// The reply path (svc_rdma_sendto.c, seed era) and the reply-position patch.

import (
	"fmt"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// pullupThresh is RPCRDMA_PULLUP_THRESH.
const pullupThresh = 512

// sendCtxtGet is svc_rdma_send_ctxt_get.
func (x *Xprt) sendCtxtGet(t *sched.Task) *SendCtxt {
	if x.Inject.takeFailure(&x.Inject.SendCtxtGet) {
		t.Pointf(kernel.SvcRdmaSendCtxtGet, "allocation failed (injected)")
		return nil
	}
	var s *SendCtxt
	if n := len(x.SendCache); n > 0 {
		s, x.SendCache = popFront(x.SendCache)
	} else {
		x.sendCreated++
		s = &SendCtxt{ID: x.sendCreated}
		s.cqe = CQE{Name: kernel.SvcRdmaWcSend.Name(), done: func(t *sched.Task, wc verbs.WC) { x.wcSend(t, s, wc) }}
		x.sends = append(x.sends, s)
		s.Hdr = &Page{ID: -s.ID, Label: fmt.Sprintf("hdr%d", s.ID), Data: make([]byte, x.Cfg.MaxReqSize)}
		if addr, err := x.pd.DMAMap(s.Hdr.Data); err == nil {
			s.Hdr.DMA = addr
		}
	}
	x.ccInit(t, &s.ReplyInfo.CC)
	s.ReplyInfo = WriteInfo{CC: s.ReplyInfo.CC}
	s.SendWR = WR{Op: verbs.WRSend, Signaled: true, Owner: "send"}
	s.SendWR.CQE = &s.cqe
	s.WRChain = &s.SendWR
	s.SQECount = 1
	clear(s.Pages)
	s.Pages = s.Pages[:0] // sc_pages is an array in the ctxt
	s.Pos = 0
	s.HdrLen = 0
	s.Kind = ""
	t.Point(kernel.SvcRdmaSendCtxtGet, "send", s.ID)
	return s
}

// allSends lists every send ctxt ever created.
func (x *Xprt) allSends() []*SendCtxt { return x.sends }

// sendCtxtPut is svc_rdma_send_ctxt_put and its release work: the Reply
// chunk's rw ctxts, the reply pages, then back on the cache.
func (x *Xprt) sendCtxtPut(t *sched.Task, s *SendCtxt) {
	x.replyChunkRelease(t, s)
	x.writeListRelease(t, s)
	for _, p := range s.Pages {
		x.putPage(p)
	}
	t.Point(kernel.SvcRdmaSendCtxtPut, "send", s.ID, "pages_released", len(s.Pages))
	clear(s.Pages)
	s.Pages = s.Pages[:0]
	x.SendCache = pushFront(x.SendCache, s)
}

// wcSend is svc_rdma_wc_send: SQEs back first, then (the patch) the
// acknowledged position advances, then the ctxt is released.
func (x *Xprt) wcSend(t *sched.Task, s *SendCtxt, wc verbs.WC) {
	x.recent.sent(s.Pos, wc.Status == verbs.StatusSuccess)
	defer t.Call(kernel.SvcRdmaWcSend, "send", s.ID, "status", wc.Status, "pos", s.Pos)(nil)
	x.wakeSendWaiters(t, s.SQECount)
	if wc.Status != verbs.StatusSuccess {
		if wc.Status == verbs.StatusWRFlushErr {
			t.Point(kernel.TraceSvcrdmaWcSendFlush, "send", s.ID)
		} else {
			t.Point(kernel.TraceSvcrdmaWcSendErr, "send", s.ID, "status", wc.Status)
		}
		x.sendCtxtPut(t, s)
		x.deferredClose(t)
		return
	}
	t.Point(kernel.TraceSvcrdmaWcSend, "send", s.ID)
	if x.Cfg.Positions {
		x.advanceAcked(t, s.Pos)
	}
	x.sendCtxtPut(t, s)
}

// advanceAcked is svc_xprt_advance_acked: a monotonic max, so a Send that
// completes behind a later one (the race of post_lock off) never moves the
// acknowledged position back. Its body is not in the seed patch; the
// earlier iteration of the series open-codes the max in svc_rdma_wc_send.
func (x *Xprt) advanceAcked(t *sched.Task, pos uint64) {
	old := x.AckedPos
	if pos > x.AckedPos {
		x.AckedPos = pos
	}
	t.Point(kernel.SvcXprtAdvanceAcked, "pos", pos, "xpt_acked_pos", x.AckedPos, "was", old)
}

// AckedPosition is svc_rdma_acked_pos (xpo_acked_pos): what the upper
// layer reads.
func (x *Xprt) AckedPosition() uint64 { return x.AckedPos }

// postSend is svc_rdma_post_send, with the patch: the position is taken
// and the chain posted under sc_post_lock; *pos is written only when the
// chain was accepted.
func (x *Xprt) postSend(t *sched.Task, s *SendCtxt, pos *uint64) (err error) {
	defer t.Call(kernel.SvcRdmaPostSend, "send", s.ID, "sqecount", s.SQECount, "sq_avail", x.SQAvail)(&err)
	first, n := s.WRChain, s.SQECount
	for !x.Close {
		if x.SQAvail-n < 0 {
			x.Counters.SQStarve++
			x.recent.needSQ(t.Name, n)
			t.Point(kernel.TraceSvcrdmaSqFull, "send", s.ID, "need", n, "avail", x.SQAvail, "sq_starve", x.Counters.SQStarve)
			if n > x.SQDepth {
				x.Counters.Hung++
				t.Fault("hung task", "the reply chain needs %d SQEs but sc_sq_depth is %d: this nfsd thread waits forever", n, x.SQDepth)
			}
			x.sendWait++
			if x.Beh.Has(B11) {
				if x.SQAvail > 0 {
					// wait_event(sc_sq_avail > 0) returns at once: the
					// kernel thread spins through this loop.
					t.Pointf(kernel.SvcRdmaPostSend, "sc_sq_avail %d > 0 but %d are needed: the thread spins until enough SQEs are free", x.SQAvail, n)
				}
				t.WaitUntil("wait_event(sc_send_wait)", func() bool { return x.SQAvail >= n || x.Close })
			} else {
				t.WaitUntil("svc_rdma_sq_wait", func() bool { return x.SQAvail >= n || x.Close })
			}
			x.sendWait--
			x.recent.gotSQ(t.Name)
			t.Point(kernel.TraceSvcrdmaSqRetry, "send", s.ID, "avail", x.SQAvail)
			continue
		}
		x.SQAvail -= n
		x.recent.gotSQ(t.Name)
		t.Point(kernel.ScSqAvail, "reserved", n, "avail", x.SQAvail, "depth", x.SQDepth)
		var seq uint64
		if x.Cfg.Positions {
			if !x.Cfg.NoPostLock {
				t.Lock(&x.PostLock)
			}
			x.PostSeq++
			seq = x.PostSeq
			s.Pos = seq
			t.Point(kernel.ScPostSeq, "seq", seq, "sc_pos", s.Pos, "locked", !x.Cfg.NoPostLock)
		}
		bad, perr := x.ibPostSend(t, first, s.Kind, seq)
		if x.Cfg.Positions && !x.Cfg.NoPostLock {
			t.Unlock(&x.PostLock)
		}
		if perr != nil {
			x.Counters.SendErrors++
			x.deferredClose(t)
			if bad == first {
				x.wakeSendWaiters(t, n)
				return errNotConn
			}
			// Part of the chain was accepted but not the Send: no
			// completion will release the ctxt. The seed assumes one
			// will come; the patch's base parks such ctxts on a
			// "stranded" list the model does not have.
			x.fault(t, "stranded send ctxt", "ib_post_send accepted %d WRs before failing: the Send was not posted, so no completion will return %d SQEs or send#%d", chainLen(first)-chainLen(bad), n, s.ID)
		}
		if pos != nil && x.Cfg.Positions {
			*pos = seq
			t.Point(kernel.RqReplyPos, "pos", seq)
		}
		return nil
	}
	return errNotConn
}

// encodeReplyHeader writes the reply's transport header into the ctxt's
// header buffer (svc_rdma_sendto steps 6–7).
func (x *Xprt) encodeReplyHeader(t *sched.Task, s *SendCtxt, rctxt *RecvCtxt, rcSize int) error {
	h := rpcrdma.Header{XID: rctxt.XID, Vers: rctxt.Vers, Credit: uint32(x.FCCredits), Proc: rpcrdma.ProcMsg}
	if !rctxt.ReplyPCL.IsEmpty() {
		h.Proc = rpcrdma.ProcNoMsg
	}
	for _, c := range rctxt.WritePCL.Chunks {
		h.WriteList = append(h.WriteList, encodeChunk(c, c.PayloadLength))
	}
	if rc := rctxt.ReplyPCL.First(); rc != nil {
		if rcSize > int(rc.Length) {
			t.Pointf(kernel.SvcRdmaEncodeReplyChunk, "reply of %d bytes does not fit the %d-byte Reply chunk", rcSize, rc.Length)
			return err2Big
		}
		rc.PayloadLength = uint32(rcSize)
		wc := encodeChunk(rc, rc.PayloadLength)
		h.ReplyChunk = &wc
	}
	b := h.AppendTo(s.Hdr.Data[:0])
	if len(b) > len(s.Hdr.Data) {
		return errMsgSize
	}
	s.HdrLen = len(b)
	s.XID = rctxt.XID
	t.Point(kernel.TraceSvcrdmaEncodeReply, "xid", hex32(h.XID), "proc", h.Proc, "hdrlen", s.HdrLen)
	return nil
}

// encodeChunk echoes a chunk with each segment's length cut to what was
// actually written (svc_rdma_encode_write_segment).
func encodeChunk(c *Chunk, payload uint32) rpcrdma.WriteChunk {
	var wc rpcrdma.WriteChunk
	remaining := payload
	for _, s := range c.Segments {
		n := min(remaining, s.Length)
		wc.Segments = append(wc.Segments, rpcrdma.Segment{Handle: s.Handle, Length: n, Offset: s.Offset})
		remaining -= n
	}
	return wc
}

// Sendto is svc_rdma_sendto: send the reply in rq.Res — Write chunks
// first, then the Reply chunk chained before the Send.
func (x *Xprt) Sendto(t *sched.Task, rq *Rqst) (err error) {
	defer t.Call(kernel.SvcRdmaSendto, "xid", hex32(rq.XID), "len", rq.Res.Len)(&err)
	rctxt := rq.Ctxt
	if x.Close || x.Dead || rctxt == nil {
		return x.sendtoDrop(t)
	}
	s := x.sendCtxtGet(t)
	if s == nil {
		return x.sendtoDrop(t)
	}
	s.Kind = "reply"
	if !rctxt.WritePCL.IsEmpty() {
		if x.Beh.New2026() {
			if err := x.prepareWriteList(t, rctxt, s, &rq.Res); err != nil {
				return x.sendtoErr(t, rq, s, rctxt, err)
			}
		} else if err := x.sendWriteList(t, rctxt, &rq.Res); err != nil {
			x.sendCtxtPut(t, s)
			return x.sendtoDrop(t)
		}
	}
	rcSize := 0
	if !rctxt.ReplyPCL.IsEmpty() {
		n, err := x.prepareReplyChunk(t, &rctxt.WritePCL, &rctxt.ReplyPCL, s, &rq.Res)
		if err != nil {
			return x.sendtoErr(t, rq, s, rctxt, err)
		}
		rcSize = n
	}
	if err := x.encodeReplyHeader(t, s, rctxt, rcSize); err != nil {
		x.sendCtxtPut(t, s)
		return x.sendtoDrop(t)
	}
	if err := x.sendReplyMsg(t, rq, s, rctxt); err != nil {
		if x.Beh.New2026() && (err == err2Big || err == errInval) {
			return x.sendtoErr(t, rq, s, rctxt, err)
		}
		x.sendCtxtPut(t, s)
		return x.sendtoDrop(t)
	}
	return nil
}

// sendtoErr is svc_rdma_sendto's send_err: answer with RDMA_ERROR and keep
// the connection.
func (x *Xprt) sendtoErr(t *sched.Task, rq *Rqst, s *SendCtxt, rctxt *RecvCtxt, cause error) error {
	if cause != err2Big && cause != errInval {
		x.sendCtxtPut(t, s)
		return x.sendtoDrop(t)
	}
	x.saveIOPages(t, rq, s)
	x.sendErrorMsg(t, s, rctxt, cause)
	return nil
}

// sendtoDrop is svc_rdma_sendto's drop_connection.
func (x *Xprt) sendtoDrop(t *sched.Task) error {
	x.deferredClose(t)
	return errNotConn
}

// sendReplyMsg is svc_rdma_send_reply_msg.
func (x *Xprt) sendReplyMsg(t *sched.Task, rq *Rqst, s *SendCtxt, rctxt *RecvCtxt) (err error) {
	defer t.Call(kernel.SvcRdmaSendReplyMsg, "send", s.ID)(&err)
	if err := x.mapReplyMsg(t, s, &rctxt.WritePCL, &rctxt.ReplyPCL, &rq.Res); err != nil {
		return err
	}
	x.saveIOPages(t, rq, s)
	if rctxt.InvRKey != 0 {
		s.SendWR.Op = verbs.WRSendWithInv
		s.SendWR.InvRKey = rctxt.InvRKey
	} else {
		s.SendWR.Op = verbs.WRSend
	}
	return x.postSend(t, s, &rq.ReplyPos)
}

// saveIOPages is svc_rdma_save_io_pages: the reply pages stay with the
// send ctxt until the Send completes.
func (x *Xprt) saveIOPages(t *sched.Task, rq *Rqst, s *SendCtxt) {
	for i := rq.RespagesIdx; i < rq.NextPageIdx && i < len(rq.Pages); i++ {
		if rq.Pages[i] != nil {
			s.Pages = append(s.Pages, rq.Pages[i])
			rq.Pages[i] = nil
		}
	}
	t.Point(kernel.SvcRdmaSaveIoPages, "send", s.ID, "pages", pagesArg(s.Pages))
}

// mapReplyMsg is svc_rdma_map_reply_msg: the header is SGE 0; without a
// Reply chunk the rest of the reply is pulled up into the header buffer or
// mapped as SGEs, except what Write chunks carried.
func (x *Xprt) mapReplyMsg(t *sched.Task, s *SendCtxt, writePCL, replyPCL *PCL, xdr *XdrBuf) (err error) {
	defer t.Call(kernel.SvcRdmaMapReplyMsg, "hdrlen", s.HdrLen, "reply_len", xdr.Len)(&err)
	s.SendWR.SGL = []SGE{{Page: s.Hdr, Off: 0, Len: s.HdrLen}}
	if !replyPCL.IsEmpty() {
		t.Pointf(kernel.SvcRdmaMapReplyMsg, "a Reply chunk carried the reply: the Send holds only the transport header")
		return nil
	}
	// svc_rdma_pull_up_needed: count what the Send would gather.
	length, sges := s.HdrLen, 1
	var regions []XdrBuf
	if err := pclProcessNonpayloads(writePCL, xdr, func(b *XdrBuf) error {
		regions = append(regions, *b)
		length += b.Len
		if b.Head.Len > 0 {
			sges++
		}
		sges += x.pagePieces(b)
		if b.Tail.Len > 0 {
			sges++
		}
		return nil
	}); err != nil {
		return err
	}
	pullup := length < pullupThresh || sges >= x.MaxSendSGEs
	t.Point(kernel.SvcRdmaPullUpNeeded, "length", length, "sges", sges, "max_send_sges", x.MaxSendSGEs, "pull_up", pullup)
	if pullup {
		if length > x.Cfg.MaxReqSize {
			if !x.Beh.Has(B8) {
				t.Pointf(kernel.SvcRdmaCheckPullUp, "%d bytes do not fit the %d-byte header buffer", length, x.Cfg.MaxReqSize)
				return err2Big
			}
			x.fault(t, "heap overflow", "svc_rdma_pull_up_reply_msg copies %d bytes into a %d-byte header buffer: %d bytes past its end (B8)",
				length, x.Cfg.MaxReqSize, length-x.Cfg.MaxReqSize)
		}
		off := s.HdrLen
		for _, r := range regions {
			flat := r.Flatten(x.PageSize)
			copy(s.Hdr.Data[off:], flat)
			off += len(flat)
		}
		s.SendWR.SGL[0].Len = off
		t.Point(kernel.SvcRdmaPullUpReplyMsg, "sge0_len", off)
		return nil
	}
	for _, r := range regions {
		if r.Head.Len > 0 {
			s.SendWR.SGL = append(s.SendWR.SGL, SGE{Page: r.Head.Page, Off: r.Head.Off, Len: r.Head.Len})
		}
		rem, po := r.PageLen, r.PageBase
		for rem > 0 {
			idx, off := po/x.PageSize, po%x.PageSize
			n := min(rem, x.PageSize-off)
			s.SendWR.SGL = append(s.SendWR.SGL, SGE{Page: r.Pages[idx], Off: off, Len: n})
			rem -= n
			po += n
		}
		if r.Tail.Len > 0 {
			s.SendWR.SGL = append(s.SendWR.SGL, SGE{Page: r.Tail.Page, Off: r.Tail.Off, Len: r.Tail.Len})
		}
	}
	t.Point(kernel.SvcRdmaDmaMap, "sges", len(s.SendWR.SGL), "sgl", sglArg(s.SendWR.SGL))
	return nil
}

func (x *Xprt) pagePieces(b *XdrBuf) int {
	if b.PageLen == 0 {
		return 0
	}
	first := b.PageBase / x.PageSize
	last := (b.PageBase + b.PageLen - 1) / x.PageSize
	return last - first + 1
}

// sendErrorMsg is svc_rdma_send_error_msg: an RDMA_ERROR reply, which
// carries no reply position.
func (x *Xprt) sendErrorMsg(t *sched.Task, s *SendCtxt, rctxt *RecvCtxt, status error) {
	defer t.Call(kernel.SvcRdmaSendErrorMsg, "xid", hex32(rctxt.XID), "status", status)(nil)
	code := rpcrdma.ErrCodeChunk
	if status == errProtoNoSp {
		code = rpcrdma.ErrCodeVers
	}
	h := rpcrdma.ErrorReply(rctxt.XID, rctxt.Vers, uint32(x.FCCredits), code)
	b := h.AppendTo(s.Hdr.Data[:0])
	s.HdrLen = len(b)
	s.Kind = "RDMA_ERROR"
	s.XID = rctxt.XID
	s.SendWR.SGL = []SGE{{Page: s.Hdr, Off: 0, Len: s.HdrLen}}
	s.SendWR.Op = verbs.WRSend
	if x.Beh.New2026() {
		s.WRChain = &s.SendWR
		s.SQECount = 1
	}
	t.Point(kernel.TraceSvcrdmaErrChunk, "xid", hex32(rctxt.XID), "err", code, "hdrlen", s.HdrLen)
	if err := x.postSend(t, s, nil); err != nil {
		x.sendCtxtPut(t, s)
	}
}

// sendError is svc_rdma_send_error: the decode-failure path of recvfrom.
func (x *Xprt) sendError(t *sched.Task, rctxt *RecvCtxt, status error) {
	s := x.sendCtxtGet(t)
	if s == nil {
		return
	}
	x.sendErrorMsg(t, s, rctxt, status)
}

// ResultPayload is svc_rdma_result_payload (xpo_result_payload): the upper
// layer says which bytes of the reply are the next DDP-eligible result, and
// they go to the next Write chunk.
func (x *Xprt) ResultPayload(t *sched.Task, rq *Rqst, offset, length int) (err error) {
	defer t.Call(kernel.SvcRdmaResultPayload, "offset", offset, "length", length)(&err)
	rctxt := rq.Ctxt
	if length == 0 || rctxt == nil || rctxt.CurResult >= rctxt.WritePCL.Count() {
		return nil
	}
	c := rctxt.WritePCL.Chunks[rctxt.CurResult]
	rctxt.CurResult++
	if length > int(c.Length) {
		return err2Big
	}
	if x.Inject.takeFailure(&x.Inject.BadPayload) {
		offset += rq.Res.Len // a buggy encoder: the region lies outside the reply
		t.Pointf(kernel.SvcRdmaResultPayload, "the payload is placed at %d, past the reply's end (injected)", offset)
	}
	c.Position = uint32(offset)
	c.PayloadLength = uint32(length)
	t.Point(kernel.SvcRdmaResultPayload, "chunk", c.Index, "position", c.Position, "payload", c.PayloadLength)
	return nil
}
