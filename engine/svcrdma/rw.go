package svcrdma

// This file is the model of the seed svc_rdma_rw.c: each function is named
// after its kernel twin, in the seed's order, so the two can be read side
// by side. Differences between profiles are marked with the bug they fix.

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// getRWCtxt is svc_rdma_get_rw_ctxt: pop the cache or allocate, then size
// the scatterlist for sges entries (chained past first_sgl_nents).
func (x *Xprt) getRWCtxt(t *sched.Task, sges int) (ctxt *RWCtxt) {
	ret := t.CallV(kernel.SvcRdmaGetRwCtxt, "sges", sges)
	defer func() {
		if ctxt == nil {
			ret(errNoMem)
		} else {
			ret("rw#" + strconv.Itoa(ctxt.ID))
		}
	}()
	if n := len(x.RWCache); n > 0 {
		ctxt, x.RWCache = popFront(x.RWCache)
		ctxt.Where, ctxt.Reused = "building", true
		x.recent.RWReused++
		t.Point(kernel.LlistDelFirst, "rw", ctxt.ID, "cached_left", len(x.RWCache))
	} else {
		x.rwCreated++
		ctxt = &RWCtxt{ID: x.rwCreated, FirstSGLNents: x.Dev.MaxSendSGE, Where: "building"}
		x.rwAll = append(x.rwAll, ctxt)
		x.recent.RWNew++
		t.Point(kernel.KmallocNode, "rw", ctxt.ID, "first_sgl_nents", ctxt.FirstSGLNents)
	}
	if sges == 0 && x.Beh.Has(B12) {
		// sg_alloc_table_chained(nents = 0) hits BUG_ON(!nents).
		x.fault(t, "BUG_ON(!nents)", "sg_alloc_table_chained was asked for 0 entries (a zero-length Read segment): the kernel oopses here and this nfsd thread dies holding rw#%d", ctxt.ID)
	}
	if x.Inject.takeFailure(&x.Inject.GetRWCtxt) {
		// The seed frees the ctxt even when it came from the cache, so
		// the live ctxts dwindle (docs/kernel-model.md, O5).
		t.Pointf(kernel.SgAllocTableChained, "allocation failed (injected): kfree(rw#%d)", ctxt.ID)
		if x.Beh.New2026() {
			x.putRWCtxt(t, ctxt)
		} else {
			ctxt.Where = "freed"
			x.rwFreed++
		}
		ctxt = nil
		t.Point(kernel.TraceSvcrdmaRwctxEmpty, "sges", sges)
		return nil
	}
	if cap(ctxt.sglMem) < sges {
		ctxt.sglMem = make([]SGE, sges)
	}
	ctxt.SGL = ctxt.sglMem[:sges:sges]
	clear(ctxt.SGL)
	ctxt.Chained = sges > ctxt.FirstSGLNents
	if ctxt.Chained {
		t.Pointf(kernel.SgAllocTableChained, "%d entries > first_sgl_nents %d: %d in the inline array plus a chain link, the rest in pool chunks of up to 128",
			sges, ctxt.FirstSGLNents, ctxt.FirstSGLNents-1)
	}
	return ctxt
}

// putRWCtxt is svc_rdma_put_rw_ctxt: free the chained table, push on the cache.
func (x *Xprt) putRWCtxt(t *sched.Task, ctxt *RWCtxt) {
	ctxt.SGL, ctxt.NEnts, ctxt.Chained, ctxt.Where = nil, 0, false, "cache"
	x.RWCache = pushFront(x.RWCache, ctxt)
	t.Point(kernel.SvcRdmaPutRwCtxt, "rw", ctxt.ID, "cached", len(x.RWCache))
}

// destroyRWCtxts is svc_rdma_destroy_rw_ctxts: free the whole cache.
func (x *Xprt) destroyRWCtxts(t *sched.Task) {
	t.Point(kernel.SvcRdmaDestroyRwCtxts, "freed", len(x.RWCache))
	for _, c := range x.RWCache {
		c.Where = "freed"
		x.rwFreed++
	}
	x.RWCache = nil
}

// rwCtxInit is svc_rdma_rw_ctx_init: rdma_rw_ctx_init over the ctxt's SGL.
// It returns how many Send Queue entries the chain will take, which the
// caller adds to cc_sqecount; on failure the errno comes back and the ctxt
// goes back to the cache.
func (x *Xprt) rwCtxInit(t *sched.Task, ctxt *RWCtxt, offset uint64, handle uint32, dir Dir) (n int, err error) {
	ret := t.CallV(kernel.SvcRdmaRwCtxInit, "rw", ctxt.ID, "offset", hex(offset), "handle", hex32(handle), "dir", dir)
	defer func() {
		if err != nil {
			ret(err)
		} else {
			ret(n)
		}
	}()
	if x.Inject.takeFailure(&x.Inject.DMAMap) {
		t.Pointf(kernel.IbDmaMapSgtableAttrs, "DMA mapping failed (injected)")
		t.Point(kernel.TraceSvcrdmaDmaMapRwErr, "offset", hex(offset), "handle", hex32(handle), "nents", ctxt.NEnts, "ret", "-EIO")
		x.putRWCtxt(t, ctxt)
		return 0, errIO
	}
	n, err = x.rdmaRWCtxInit(t, &ctxt.RW, ctxt.SGL[:ctxt.NEnts], offset, handle, dir)
	if err != nil {
		t.Point(kernel.TraceSvcrdmaDmaMapRwErr, "offset", hex(offset), "handle", hex32(handle), "nents", ctxt.NEnts, "ret", "-"+err.Error())
		x.putRWCtxt(t, ctxt)
		return 0, err
	}
	return n, nil
}

// ccInit is svc_rdma_cc_init: a completion id the first time, an empty
// list of rw ctxts, no SQEs.
func (x *Xprt) ccInit(t *sched.Task, cc *ChunkCtxt) {
	if cc.CID == 0 {
		cc.CID = x.newCID()
	}
	cc.RWCtxts = nil
	cc.SQECount = 0
	t.Point(kernel.SvcRdmaCcInit, "cid", cc.CID)
}

// ccRelease is svc_rdma_cc_release: destroy every rw ctxt of cc and push
// them on the cache in one batch, the first built ending on top.
func (x *Xprt) ccRelease(t *sched.Task, cc *ChunkCtxt, dir Dir) {
	defer t.Call(kernel.SvcRdmaCcRelease, "cid", cc.CID, "sqecount", cc.SQECount, "ctxts", len(cc.RWCtxts), "dir", dir)(nil)
	batch := make([]*RWCtxt, len(cc.RWCtxts))
	// The kernel walks the list with svc_rdma_next_ctxt until it is empty;
	// each ctxt goes on the head of the batch.
	for i, c := range cc.RWCtxts {
		x.rdmaRWCtxDestroy(&c.RW)
		c.SGL, c.NEnts, c.Chained, c.Where = nil, 0, false, "release batch"
		batch[len(batch)-1-i] = c
		t.Point(kernel.SvcRdmaPutRwCtxtBatch, "rw", c.ID, "onto", "the release batch")
	}
	cc.RWCtxts = nil
	for _, c := range batch {
		c.Where = "cache"
	}
	x.RWCache = slices.Insert(x.RWCache, 0, batch...)
	if len(batch) > 0 {
		t.Point(kernel.LlistAddBatch, "ctxts", len(batch), "cached", len(x.RWCache))
	}
}

// writeInfoAlloc is svc_rdma_write_info_alloc.
func (x *Xprt) writeInfoAlloc(t *sched.Task, chunk *Chunk) *WriteInfo {
	if x.Inject.takeFailure(&x.Inject.WriteInfoAlloc) {
		t.Pointf(kernel.SvcRdmaWriteInfoAlloc, "kzalloc_node failed (injected)")
		return nil
	}
	t.Point(kernel.SvcRdmaWriteInfoAlloc, "write_chunk", chunk.Index)
	info := &WriteInfo{Chunk: chunk}
	x.ccInit(t, &info.CC)
	info.CC.CQE = CQE{Name: kernel.SvcRdmaWriteDone.Name(), done: func(t *sched.Task, wc verbs.WC) { x.writeDone(t, info, wc) }}
	info.CC.Owner = fmt.Sprintf("write chunk %d", chunk.Index)
	return info
}

// writeInfoFree is svc_rdma_write_info_free: the release runs from a
// workqueue in the kernel (svc_rdma_write_info_free_async); the model
// runs it at once.
func (x *Xprt) writeInfoFree(t *sched.Task, info *WriteInfo) {
	t.Point(kernel.SvcRdmaWriteInfoFree, "cid", info.CC.CID, "queued", kernel.SvcRdmaWriteInfoFreeAsync.Name())
	t.Point(kernel.SvcRdmaWriteInfoFreeAsync, "cid", info.CC.CID)
	x.ccRelease(t, &info.CC, ToDevice)
}

// replyChunkRelease is svc_rdma_reply_chunk_release.
func (x *Xprt) replyChunkRelease(t *sched.Task, sctxt *SendCtxt) {
	cc := &sctxt.ReplyInfo.CC
	if cc.SQECount == 0 {
		return
	}
	t.Point(kernel.SvcRdmaReplyChunkRelease, "send", sctxt.ID, "cid", cc.CID, "sqecount", cc.SQECount)
	x.ccRelease(t, cc, ToDevice)
}

// replyDone is svc_rdma_reply_done: on success it releases nothing, as the
// pages under the Writes go when the Send that follows them completes; an
// error closes the connection. Reply chunk WRs are never signaled, so the
// kernel never calls it (docs/kernel-model.md, O4); it is here for
// completeness.
func (x *Xprt) replyDone(t *sched.Task, cc *ChunkCtxt, wc verbs.WC) {
	defer t.Call(kernel.SvcRdmaReplyDone, "cid", cc.CID, "status", wc.Status)(nil)
	switch wc.Status {
	case verbs.StatusSuccess:
		t.Point(kernel.TraceSvcrdmaWcReply, "cid", cc.CID)
		return
	case verbs.StatusWRFlushErr:
		t.Point(kernel.TraceSvcrdmaWcReplyFlush, "cid", cc.CID)
	default:
		t.Point(kernel.TraceSvcrdmaWcReplyErr, "cid", cc.CID, "status", wc.Status)
	}
	x.deferredClose(t)
}

// writeDone is svc_rdma_write_done: a Write chunk's completion gives its
// SQEs back and frees the write info; an error closes the connection. The
// pages the Writes read from stay: the reply's Send completion, which
// comes later, frees them.
func (x *Xprt) writeDone(t *sched.Task, info *WriteInfo, wc verbs.WC) {
	cc := &info.CC
	defer t.Call(kernel.SvcRdmaWriteDone, "cid", cc.CID, "status", wc.Status)(nil)
	switch wc.Status {
	case verbs.StatusSuccess:
		t.Point(kernel.TraceSvcrdmaWcWrite, "cid", cc.CID)
	case verbs.StatusWRFlushErr:
		t.Point(kernel.TraceSvcrdmaWcWriteFlush, "cid", cc.CID)
	default:
		t.Point(kernel.TraceSvcrdmaWcWriteErr, "cid", cc.CID, "status", wc.Status)
	}
	x.wakeSendWaiters(t, cc.SQECount)
	if wc.Status != verbs.StatusSuccess {
		x.deferredClose(t)
	}
	x.writeInfoFree(t, info)
}

// wcReadDone is svc_rdma_wc_read_done: on success the call is queued for a
// thread to finish (svc_rdma_read_complete). A flushed or failed Read
// means the call can never be rebuilt, so it is dropped, and closing the
// connection is how the client learns of the loss.
func (x *Xprt) wcReadDone(t *sched.Task, head *RecvCtxt, wc verbs.WC) {
	cc := &head.CC
	defer t.Call(kernel.SvcRdmaWcReadDone, "cid", cc.CID, "status", wc.Status)(nil)
	x.wakeSendWaiters(t, cc.SQECount)
	switch wc.Status {
	case verbs.StatusSuccess:
		x.markReadSources(head)
		t.Point(kernel.TraceSvcrdmaWcRead, "cid", cc.CID, "readbytes", head.ReadBytes)
		x.ReadComplete = append(x.ReadComplete, head)
		x.Data = true
		t.Pointf(kernel.SvcXprtEnqueue, "XPT_DATA set: a thread will finish the call (%d on sc_read_complete_q)", len(x.ReadComplete))
		return
	case verbs.StatusWRFlushErr:
		t.Point(kernel.TraceSvcrdmaWcReadFlush, "cid", cc.CID)
	default:
		t.Point(kernel.TraceSvcrdmaWcReadErr, "cid", cc.CID, "status", wc.Status)
	}
	x.recvCtxtPut(t, head) // releases the cc's rw ctxts too
	x.deferredClose(t)
}

// postChunkCtxt is svc_rdma_post_chunk_ctxt: link the rw ctxts into one
// chain with the cqe on its last WR, reserve SQEs (waiting while the SQ is
// short) and post it. It counts on one completion for the whole chain once
// ib_post_send has taken it, even if some WRs are then flushed: true of an
// rdma_rw_ctx's chain and of a lone signaled WR. So when a post fails
// after taking part of the chain, the completion still comes and returns
// the SQEs: the connection closes, but the call reports success. Only a
// chain refused whole gives its SQEs back here and fails with ENOTCONN,
// as does a wait the closing transport ends (new2026). A chain longer
// than the whole SQ is EINVAL.
func (x *Xprt) postChunkCtxt(t *sched.Task, cc *ChunkCtxt) (err error) {
	defer t.Call(kernel.SvcRdmaPostChunkCtxt, "cid", cc.CID, "sqecount", cc.SQECount, "sq_avail", x.SQAvail)(&err)
	if cc.SQECount > x.SQDepth {
		t.Pointf(kernel.SvcRdmaPostChunkCtxt, "cc_sqecount %d > sc_sq_depth %d", cc.SQECount, x.SQDepth)
		return errInval
	}
	first := x.chainCC(cc, nil)
	t.Point(kernel.RdmaRwCtxWrs, "chain", chainArg{first})
	for {
		after := x.SQAvail - cc.SQECount
		fits := after > 0 // the seed keeps one SQE back for chunk posts (docs/kernel-model.md, O1)
		if !x.Beh.Has(B11) {
			fits = after >= 0
		}
		if fits {
			x.SQAvail = after
			cc.PostTime = x.now()
			x.recent.gotSQ(t.Name)
			t.Point(kernel.ScSqAvail, "reserved", cc.SQECount, "avail", x.SQAvail, "depth", x.SQDepth)
			bad, perr := x.ibPostSend(t, first, cc.Owner, 0)
			if perr == nil {
				return nil
			}
			t.Point(kernel.TraceSvcrdmaSqPostErr, "cid", cc.CID, "ret", perr)
			x.deferredClose(t)
			if bad != first {
				// Part of the chain was taken: its completion still comes.
				return nil
			}
			x.wakeSendWaiters(t, cc.SQECount)
			return errNotConn
		}
		x.Counters.SQStarve++
		x.recent.needSQ(t.Name, cc.SQECount)
		t.Point(kernel.TraceSvcrdmaSqFull, "cid", cc.CID, "need", cc.SQECount, "avail", x.SQAvail, "sq_starve", x.Counters.SQStarve)
		need := cc.SQECount
		x.sendWait++
		if x.Beh.Has(B11) && need >= x.SQDepth {
			// sc_sq_avail can never exceed sc_sq_depth: this wait never ends.
			x.Counters.Hung++
			t.Fault("hung task", "svc_rdma_post_chunk_ctxt waits for sc_sq_avail > %d, but sc_sq_depth is %d: this nfsd thread sleeps forever (the kernel's hung-task watchdog reports it after 120 s)", need, x.SQDepth)
		}
		if x.Beh.Has(B11) {
			t.WaitUntil("wait_event(sc_send_wait)", func() bool { return x.SQAvail > need })
		} else {
			t.WaitUntil("svc_rdma_sq_wait", func() bool { return x.SQAvail >= need || x.Close })
		}
		x.sendWait--
		if x.Close && !x.Beh.Has(B11) {
			return errNotConn
		}
		x.recent.gotSQ(t.Name)
		t.Point(kernel.TraceSvcrdmaSqRetry, "cid", cc.CID, "avail", x.SQAvail)
	}
}

// vecToSG is svc_rdma_vec_to_sg: one entry for len bytes at the kvec cursor.
func (x *Xprt) vecToSG(info *WriteInfo, n int, ctxt *RWCtxt) {
	ctxt.SGL[0] = SGE{Page: info.Base.Page, Off: info.Base.Off, Len: n}
	info.Base.Off += n
	info.Base.Len -= n
	ctxt.NEnts = 1
}

// pagelistToSG is svc_rdma_pagelist_to_sg: entries for remaining bytes of
// the xdr_buf's page list, from wi_next_off.
func (x *Xprt) pagelistToSG(info *WriteInfo, remaining int, ctxt *RWCtxt) {
	xdr := info.Xdr
	po := info.NextOff + xdr.PageBase
	idx, off := po/x.PageSize, po%x.PageSize
	info.NextOff += remaining
	n := 0
	for {
		take := min(remaining, x.PageSize-off)
		var pg *Page
		if idx < len(xdr.Pages) {
			pg = xdr.Pages[idx]
		}
		if n < len(ctxt.SGL) {
			ctxt.SGL[n] = SGE{Page: pg, Off: off, Len: take}
		}
		n++
		remaining -= take
		off = 0
		idx++
		if remaining <= 0 {
			break
		}
	}
	ctxt.NEnts = min(n, len(ctxt.SGL))
}

// buildWrites is svc_rdma_build_writes: one rw ctxt per piece of the xdr
// region that fits the current Write segment. It fails with E2BIG when the
// client's chunk has no room left for the rest, ENOMEM when no rw ctxt can
// be had, and EIO when rdma_rw cannot map or build the Writes.
func (x *Xprt) buildWrites(t *sched.Task, info *WriteInfo, ctor func(*WriteInfo, int, *RWCtxt), ctorName *trace.Func, remaining int) (err error) {
	defer t.Call(kernel.SvcRdmaBuildWrites, "remaining", remaining, "seg_no", info.SegNo, "seg_off", info.SegOff)(&err)
	cc := &info.CC
	for {
		if info.SegNo >= len(info.Chunk.Segments) {
			t.Point(kernel.TraceSvcrdmaSmallWrchErr, "remaining", remaining, "seg_no", info.SegNo, "num_segs", len(info.Chunk.Segments))
			return err2Big
		}
		seg := info.Chunk.Segments[info.SegNo]
		writeLen := min(remaining, int(seg.Length)-info.SegOff)
		if writeLen <= 0 {
			t.Point(kernel.TraceSvcrdmaSmallWrchErr, "remaining", remaining, "seg_no", info.SegNo, "num_segs", len(info.Chunk.Segments))
			return err2Big
		}
		ctxt := x.getRWCtxt(t, writeLen/x.PageSize+2)
		if ctxt == nil {
			return errNoMem
		}
		ctor(info, writeLen, ctxt)
		t.Point(ctorName, "rw", ctxt.ID, "sgl", sglArg(ctxt.SGL[:ctxt.NEnts]))
		offset := seg.Offset + uint64(info.SegOff)
		n, rerr := x.rwCtxInit(t, ctxt, offset, seg.Handle, ToDevice)
		if rerr != nil {
			return errIO
		}
		x.Counters.Writes++
		ctxt.Where = cc.Owner
		cc.RWCtxts = append([]*RWCtxt{ctxt}, cc.RWCtxts...)
		cc.SQECount += n
		if writeLen == int(seg.Length)-info.SegOff {
			info.SegNo++
			info.SegOff = 0
		} else {
			info.SegOff += writeLen
		}
		remaining -= writeLen
		t.Point(kernel.SvcRdmaBuildWrites, "wqes", n, "cc_sqecount", cc.SQECount, "seg_no", info.SegNo, "seg_off", info.SegOff)
		if remaining <= 0 {
			return nil
		}
	}
}

// iovWrite is svc_rdma_iov_write: the Writes of one kvec, failing as
// buildWrites does.
func (x *Xprt) iovWrite(t *sched.Task, info *WriteInfo, iov Kvec) error {
	t.Point(kernel.SvcRdmaIovWrite, "page", iov.Page.Name(), "off", iov.Off, "len", iov.Len)
	info.Base = iov
	return x.buildWrites(t, info, x.vecToSG, kernel.SvcRdmaVecToSg, iov.Len)
}

// pagesWrite is svc_rdma_pages_write: the Writes of length bytes of the
// page list from offset in the xdr_buf, failing as buildWrites does.
func (x *Xprt) pagesWrite(t *sched.Task, info *WriteInfo, xdr *XdrBuf, offset, length int) error {
	t.Point(kernel.SvcRdmaPagesWrite, "offset", offset, "length", length, "pages", len(xdr.Pages))
	info.Xdr = xdr
	info.NextOff = offset - xdr.Head.Len
	return x.buildWrites(t, info, x.pagelistToSG, kernel.SvcRdmaPagelistToSg, length)
}

// xbWrite is svc_rdma_xb_write: head, page list and tail of one xdr_buf.
// It returns the xdr_buf's length, which svc_rdma_send_write_chunk checks
// against the payload's (the kernel's comment says zero; its code returns
// the length), or the first error of buildWrites.
func (x *Xprt) xbWrite(t *sched.Task, xdr *XdrBuf, info *WriteInfo) (n int, err error) {
	ret := t.CallV(kernel.SvcRdmaXbWrite, "head", xdr.Head.Len, "page_len", xdr.PageLen, "tail", xdr.Tail.Len)
	defer func() {
		if err != nil {
			ret(err)
		} else {
			ret(n)
		}
	}()
	if xdr.Head.Len > 0 {
		if err := x.iovWrite(t, info, xdr.Head); err != nil {
			return 0, err
		}
	}
	if xdr.PageLen > 0 {
		if err := x.pagesWrite(t, info, xdr, xdr.Head.Len, xdr.PageLen); err != nil {
			return 0, err
		}
	}
	if xdr.Tail.Len > 0 {
		if err := x.iovWrite(t, info, xdr.Tail); err != nil {
			return 0, err
		}
	}
	return xdr.Len, nil
}

// sendWriteChunk is svc_rdma_send_write_chunk: build and post the RDMA
// Writes for one Write chunk's payload. A payload outside the reply is
// EMSGSIZE, no write info ENOMEM; otherwise it fails as xbWrite or
// postChunkCtxt does, and the write info goes.
func (x *Xprt) sendWriteChunk(t *sched.Task, chunk *Chunk, xdr *XdrBuf) (err error) {
	defer t.Call(kernel.SvcRdmaSendWriteChunk, "chunk", chunk.Index, "position", chunk.Position, "payload", chunk.PayloadLength)(&err)
	payload, ok := xdr.subsegment(int(chunk.Position), int(chunk.PayloadLength))
	if !ok {
		return errMsgSize
	}
	info := x.writeInfoAlloc(t, chunk)
	if info == nil {
		return errNoMem
	}
	n, err := x.xbWrite(t, &payload, info)
	if err != nil || n != payload.Len {
		x.writeInfoFree(t, info)
		if err == nil {
			err = errInval
		}
		return err
	}
	t.Point(kernel.TraceSvcrdmaPostWriteChunk, "cid", info.CC.CID, "sqecount", info.CC.SQECount)
	if err := x.postChunkCtxt(t, &info.CC); err != nil {
		x.writeInfoFree(t, info)
		return err
	}
	return nil
}

// sendWriteList is svc_rdma_send_write_list: every Write chunk that carries
// a payload, in order. The first chunk that cannot be sent ends the list
// with its error; the reply is then dropped and the connection closed.
func (x *Xprt) sendWriteList(t *sched.Task, rctxt *RecvCtxt, xdr *XdrBuf) (err error) {
	defer t.Call(kernel.SvcRdmaSendWriteList, "chunks", rctxt.WritePCL.Count())(&err)
	for _, chunk := range rctxt.WritePCL.Chunks {
		if chunk.PayloadLength == 0 {
			break
		}
		if err := x.sendWriteChunk(t, chunk, xdr); err != nil {
			return err
		}
	}
	return nil
}

// prepareReplyChunk is svc_rdma_prepare_reply_chunk: build the RDMA Writes
// of the Reply chunk and chain them in front of the Send; it returns the
// whole reply length, Write chunk bytes included (docs/kernel-model.md, O2).
// A reply longer than the chunk is E2BIG, no rw ctxt ENOMEM, a mapping
// failure EIO. Nothing is posted here: the Send carries the chain, so a
// lost connection shows when it is posted.
func (x *Xprt) prepareReplyChunk(t *sched.Task, writePCL, replyPCL *PCL, sctxt *SendCtxt, xdr *XdrBuf) (n int, err error) {
	ret := t.CallV(kernel.SvcRdmaPrepareReplyChunk, "reply_len", xdr.Len, "chunk_len", replyPCL.First().Length)
	defer func() {
		if err != nil {
			ret(err)
		} else {
			ret(n)
		}
	}()
	info := &sctxt.ReplyInfo
	cc := &info.CC
	info.Chunk = replyPCL.First()
	info.SegOff, info.SegNo = 0, 0
	cc.CQE = CQE{Name: kernel.SvcRdmaReplyDone.Name(), done: func(t *sched.Task, wc verbs.WC) { x.replyDone(t, cc, wc) }}
	cc.Owner = "reply chunk"
	if err := pclProcessNonpayloads(writePCL, xdr, func(b *XdrBuf) error {
		_, err := x.xbWrite(t, b, info)
		return err
	}); err != nil {
		return 0, err
	}
	first := x.chainCC(cc, sctxt.WRChain)
	sctxt.WRChain = first
	sctxt.SQECount += cc.SQECount
	t.Point(kernel.TraceSvcrdmaPostReplyChunk, "cid", cc.CID, "sqecount", cc.SQECount, "chain", chainArg{first})
	return xdr.Len, nil
}

// chainCC links the rw ctxts of cc in construction order in front of
// chain, as svc_rdma_post_chunk_ctxt and the reply path do: the cqe goes
// to the last WR only when chain is nil, so in front of a Send it is never
// attached (docs/kernel-model.md, O4 and O6).
func (x *Xprt) chainCC(cc *ChunkCtxt, chain *WR) *WR {
	first := chain
	cqe := &cc.CQE
	for _, c := range cc.RWCtxts {
		first = x.rdmaRWCtxWrs(&c.RW, cqe, first)
		cqe = nil
	}
	return first
}

// buildReadSegment is svc_rdma_build_read_segment: map one Read segment
// onto rq_pages from (rc_curpage, rc_pageoff) and build its RDMA Reads.
// It fails with EINVAL when rq_pages run out before the segment does (or,
// in new2026, when its length overflows), ENOMEM when no rw ctxt can be
// had, and EIO when the DMA mapping fails.
func (x *Xprt) buildReadSegment(t *sched.Task, rq *Rqst, head *RecvCtxt, seg Segment, src string) (err error) {
	defer t.Call(kernel.SvcRdmaBuildReadSegment, "handle", hex32(seg.Handle), "length", seg.Length, "offset", hex(seg.Offset),
		"curpage", head.CurPage, "pageoff", head.PageOff)(&err)
	cc := &head.CC
	// The kernel computes in u32: PAGE_ALIGN(rc_pageoff + len) >> PAGE_SHIFT
	// wraps for a huge length (reachable through B4).
	if x.Beh.New2026() && uint32(head.PageOff)+seg.Length < seg.Length {
		return errInval
	}
	length := seg.Length
	nents := int((uint32(head.PageOff) + seg.Length + uint32(x.PageSize-1)) / uint32(x.PageSize))
	if nents > x.MaxPages+1 && x.Beh.Has(B6) {
		// B6: the table is allocated before the overrun check; the model
		// caps what it allocates and says what the kernel would have done.
		t.Pointf(kernel.SvcRdmaBuildReadSegment, "asks for an SGL of %d entries before checking rq_maxpages %d (B6)", nents, x.MaxPages)
	}
	ctxt := x.getRWCtxt(t, min(nents, x.MaxPages+2))
	if ctxt == nil {
		return errNoMem
	}
	ctxt.NEnts = min(nents, len(ctxt.SGL))
	for i := 0; i < ctxt.NEnts; i++ {
		segLen := int(min(length, uint32(x.PageSize-head.PageOff)))
		if head.PageOff == 0 {
			head.PageCount++
		}
		var pg *Page
		if head.CurPage < len(rq.Pages) {
			pg = rq.Pages[head.CurPage]
		} else if head.CurPage == len(rq.Pages) {
			// B13: rq_pages[rq_maxpages] is the NULL sentinel.
			x.fault(t, "NULL page", "svc_rdma_build_read_segment used rq_pages[%d], the NULL sentinel past rq_maxpages (B13): sg_set_page(NULL) oopses", head.CurPage)
		}
		ctxt.SGL[i] = SGE{Page: pg, Off: head.PageOff, Len: segLen}
		t.Point(kernel.SgSetPage, "sgl", i, "entry", &ctxt.SGL[i], "rq_page", head.CurPage)
		head.PageOff += segLen
		if head.PageOff == x.PageSize {
			head.CurPage++
			head.PageOff = 0
		}
		length -= uint32(segLen)
		if length > 0 && head.CurPage+1 > x.MaxPages {
			t.Point(kernel.TraceSvcrdmaPageOverrunErr, "cid", cc.CID, "curpage", head.CurPage)
			if x.Beh.Has(B6) {
				ctxt.Where = "leaked"
				t.Pointf(kernel.SvcRdmaBuildReadSegment, "returns without putting rw#%d back: leaked (B6)", ctxt.ID)
			} else {
				x.putRWCtxt(t, ctxt)
			}
			return errInval
		}
	}
	ctxt.sources(src)
	n, rerr := x.rwCtxInit(t, ctxt, seg.Offset, seg.Handle, FromDevice)
	if rerr != nil {
		return errIO
	}
	x.Counters.Reads++
	ctxt.Where = "read cc"
	cc.RWCtxts = append([]*RWCtxt{ctxt}, cc.RWCtxts...)
	cc.SQECount += n
	t.Point(kernel.SvcRdmaBuildReadSegment, "rw", ctxt.ID, "wqes", n, "cc_sqecount", cc.SQECount,
		"curpage", head.CurPage, "pageoff", head.PageOff, "page_count", head.PageCount)
	return nil
}

// buildReadChunk is svc_rdma_build_read_chunk: the Reads of every segment
// of one Read chunk, counted in rc_readbytes. It fails as buildReadSegment
// does, and with EINVAL for a chunk without segments.
func (x *Xprt) buildReadChunk(t *sched.Task, rq *Rqst, head *RecvCtxt, chunk *Chunk, src string) (err error) {
	defer t.Call(kernel.SvcRdmaBuildReadChunk, "position", chunk.Position, "length", chunk.Length, "segments", len(chunk.Segments))(&err)
	err = errInval
	for i, seg := range chunk.Segments {
		if err = x.buildReadSegment(t, rq, head, seg, fmt.Sprintf("%s seg %d", src, i)); err != nil {
			break
		}
		head.ReadBytes += int(seg.Length)
		t.Point(kernel.RcReadbytes, "readbytes", head.ReadBytes)
	}
	return err
}

// copyInlineRange is svc_rdma_copy_inline_range: copy inline bytes of the
// call into rq_pages, a page at a time, advancing rc_curpage and
// rc_pageoff so that the Read data that follows lands right after them.
// A range outside the inline bytes, or past rq_maxpages, is EINVAL; so is
// every copy under B2.
func (x *Xprt) copyInlineRange(t *sched.Task, rq *Rqst, head *RecvCtxt, offset, remaining uint32) (err error) {
	defer t.Call(kernel.SvcRdmaCopyInlineRange, "offset", offset, "remaining", remaining,
		"curpage", head.CurPage, "pageoff", head.PageOff)(&err)
	src := head.Buf.Data[:head.ByteLen] // B5: based at the transport header
	if !x.Beh.Has(B5) {
		src = head.Buf.Data[head.HdrLen:head.ByteLen]
		inline := uint32(len(src))
		if offset > inline || remaining > inline-offset {
			t.Pointf(kernel.SvcRdmaCopyInlineRange, "range [%d,+%d) is outside the %d inline bytes", offset, remaining, inline)
			return errInval
		}
	}
	numPages := int((uint64(head.PageOff) + uint64(remaining) + uint64(x.PageSize) - 1) / uint64(x.PageSize))
	for i := 0; i < numPages; i++ {
		if !x.Beh.Has(B3) && head.CurPage >= x.MaxPages {
			t.Pointf(kernel.SvcRdmaCopyInlineRange, "rc_curpage %d >= rq_maxpages %d", head.CurPage, x.MaxPages)
			return errInval
		}
		pageLen := min(int(remaining), x.PageSize-head.PageOff)
		if head.PageOff == 0 {
			head.PageCount++
		}
		if head.CurPage >= len(rq.Pages) || rq.Pages[head.CurPage] == nil {
			x.fault(t, "NULL page", "memcpy into rq_pages[%d], past rq_maxpages (B3): the kernel dereferences the NULL sentinel", head.CurPage)
		}
		dst := rq.Pages[head.CurPage]
		dstOff := head.PageOff
		if x.Beh.Has(B1) {
			dstOff = head.CurPage // B1: a page index used as a byte offset
		}
		n := x.copyBytes(t, dst, dstOff, src, int(offset), pageLen)
		dst.mark(dstOff, n, "inline")
		t.Point(kernel.Memcpy, "dst", fmt.Sprintf("%s+%d", dst.Name(), dstOff), "src_off", offset, "len", pageLen)
		head.ReadBytes += pageLen
		head.PageOff += pageLen
		if head.PageOff == x.PageSize {
			head.CurPage++
			head.PageOff = 0
		}
		remaining -= uint32(pageLen)
		offset += uint32(pageLen)
	}
	if x.Beh.Has(B2) {
		t.Pointf(kernel.SvcRdmaCopyInlineRange, "copied, but returns -EINVAL all the same (B2)")
		return errInval
	}
	return nil
}

// copyBytes copies n bytes from src[off:] to dst[dstOff:], stopping where
// either buffer ends; a copy that would run past an end is a fault.
func (x *Xprt) copyBytes(t *sched.Task, dst *Page, dstOff int, src []byte, off, n int) int {
	if off > len(src) || n > len(src)-off || dstOff+n > len(dst.Data) {
		x.fault(t, "out-of-bounds memcpy", "memcpy of %d bytes from receive-buffer offset %d (buffer %d bytes) to %s+%d would run past a buffer (B5)", n, off, len(src), dst.Name(), dstOff)
	}
	return copy(dst.Data[dstOff:dstOff+n], src[off:off+n])
}

// readMultipleChunks is svc_rdma_read_multiple_chunks: inline pieces and
// Read chunks, copied and pulled into rq_pages in XDR order, so the call
// arrives as a run of contiguous pages, as a call over TCP would. It fails
// with EINVAL for chunks whose positions do not fit the call, or as
// copyInlineRange and buildReadChunk do.
func (x *Xprt) readMultipleChunks(t *sched.Task, rq *Rqst, head *RecvCtxt) (err error) {
	defer t.Call(kernel.SvcRdmaReadMultipleChunks, "chunks", head.ReadPCL.Count())(&err)
	pcl := &head.ReadPCL
	var start uint32
	chunk := pcl.First()
	length := chunk.Position
	if err := x.copyInlineRange(t, rq, head, start, length); err != nil {
		return err
	}
	for _, chunk := range pcl.Chunks {
		if err := x.buildReadChunk(t, rq, head, chunk, fmt.Sprintf("read chunk %d", chunk.Index)); err != nil {
			return err
		}
		next := pcl.Next(chunk)
		if next == nil {
			break
		}
		if !x.Beh.Has(B5) && uint32(head.ReadBytes) > next.Position {
			t.Pointf(kernel.SvcRdmaReadMultipleChunks, "rc_readbytes %d passes the next chunk's position %d", head.ReadBytes, next.Position)
			return errInval
		}
		start += length
		length = next.Position - uint32(head.ReadBytes) // u32: wraps when chunks overlap (B5)
		if err := x.copyInlineRange(t, rq, head, start, length); err != nil {
			return err
		}
	}
	start += length
	total := uint32(head.ByteLen) // B5: includes the transport header
	if !x.Beh.Has(B5) {
		total = uint32(head.ByteLen - head.HdrLen)
		if start > total {
			return errInval
		}
	}
	length = total - start
	return x.copyInlineRange(t, rq, head, start, length)
}

// readDataItem is svc_rdma_read_data_item: one Read chunk, whose data
// becomes rq_arg's page list; the inline bytes stay in the Receive buffer
// until svc_rdma_read_complete makes those before the chunk's position the
// head and those after it the tail. (The kernel's comment, older than that
// code, says the trailing bytes and the XDR pad go at the end of the page
// list, because nfsd did not read the tail.) It fails as buildReadChunk
// does, or with EINVAL for a position past the inline bytes.
func (x *Xprt) readDataItem(t *sched.Task, rq *Rqst, head *RecvCtxt) (err error) {
	defer t.Call(kernel.SvcRdmaReadDataItem)(&err)
	chunk := head.ReadPCL.First()
	if !x.Beh.Has(B5) && int(chunk.Position) > head.ByteLen-head.HdrLen {
		return errInval
	}
	return x.buildReadChunk(t, rq, head, chunk, fmt.Sprintf("read chunk %d", chunk.Index))
}

// readChunkRange is svc_rdma_read_chunk_range: pull [offset, offset+length)
// of the call chunk, segment by segment, failing as buildReadSegment does.
func (x *Xprt) readChunkRange(t *sched.Task, rq *Rqst, head *RecvCtxt, chunk *Chunk, offset, length uint32) (err error) {
	defer t.Call(kernel.SvcRdmaReadChunkRange, "offset", offset, "length", length)(&err)
	b4 := x.Beh.Has(B4)
	if !b4 && length == 0 {
		return nil
	}
	err = errInval
	for i, seg := range chunk.Segments {
		if (b4 && offset > seg.Length) || (!b4 && offset >= seg.Length) {
			offset -= seg.Length
			continue
		}
		var d Segment
		d.Handle = seg.Handle
		if b4 {
			d.Length = min(length, seg.Length) - offset // u32: may wrap
		} else {
			d.Length = min(length, seg.Length-offset)
		}
		d.Offset = seg.Offset + uint64(offset)
		t.Point(kernel.SvcRdmaReadChunkRange, "segment", i, "dummy", d)
		if err = x.buildReadSegment(t, rq, head, d, fmt.Sprintf("call chunk seg %d", i)); err != nil {
			break
		}
		head.ReadBytes += int(d.Length)
		length -= d.Length
		offset = 0
		if !b4 && length == 0 {
			break
		}
	}
	return err
}

// readCallChunk is svc_rdma_read_call_chunk: a Long Message, with any Read
// chunks pulled into their positions. It fails with EINVAL for a Read
// chunk whose position does not fit the call, or as readChunkRange and
// buildReadChunk do.
func (x *Xprt) readCallChunk(t *sched.Task, rq *Rqst, head *RecvCtxt) (err error) {
	defer t.Call(kernel.SvcRdmaReadCallChunk, "read_chunks", head.ReadPCL.Count())(&err)
	call := head.CallPCL.First()
	pcl := &head.ReadPCL
	if pcl.IsEmpty() {
		return x.buildReadChunk(t, rq, head, call, "call chunk")
	}
	var start uint32
	length := pcl.First().Position
	if !x.Beh.Has(B5) && length > call.Length {
		return errInval
	}
	if err := x.readChunkRange(t, rq, head, call, start, length); err != nil {
		return err
	}
	for _, chunk := range pcl.Chunks {
		if err := x.buildReadChunk(t, rq, head, chunk, fmt.Sprintf("read chunk %d", chunk.Index)); err != nil {
			return err
		}
		next := pcl.Next(chunk)
		if next == nil {
			break
		}
		if !x.Beh.Has(B5) && uint32(head.ReadBytes) > next.Position {
			return errInval
		}
		start += length
		length = next.Position - uint32(head.ReadBytes)
		if err := x.readChunkRange(t, rq, head, call, start, length); err != nil {
			return err
		}
	}
	start += length
	length = call.Length - start
	return x.readChunkRange(t, rq, head, call, start, length)
}

// readSpecial is svc_rdma_read_special: the whole call comes by RDMA Read
// (a position-zero Read chunk). The kernel assumes such a chunk comes only
// with RDMA_NOMSG, though RFC 8166 allows it with RDMA_MSG.
func (x *Xprt) readSpecial(t *sched.Task, rq *Rqst, head *RecvCtxt) (err error) {
	defer t.Call(kernel.SvcRdmaReadSpecial)(&err)
	return x.readCallChunk(t, rq, head)
}

// clearRqstPages is svc_rdma_clear_rqst_pages: the pages under I/O move to
// the recv ctxt so releasing the rqst does not free them. It runs after
// every Read is built, because one page can hold the ends of two
// segments; and if the post then fails, the recv ctxt's release frees
// the pages.
func (x *Xprt) clearRqstPages(t *sched.Task, rq *Rqst, head *RecvCtxt) {
	head.Pages = head.Pages[:0]
	for i := 0; i < head.PageCount && i < len(rq.Pages); i++ {
		head.Pages = append(head.Pages, rq.Pages[i])
		rq.Pages[i] = nil
	}
	t.Point(kernel.SvcRdmaClearRqstPages, "moved", head.PageCount, "rc_pages", pagesArg(head.Pages))
}

// processReadList is svc_rdma_process_read_list: build every Read WR the
// call needs and post them as one chain; 1 means "posted, call parked".
// RPC-over-RDMA expects the upper layer to pull each chunk while it
// decodes, but nfsd wants the whole call in rq_arg before recvfrom
// returns, so the Read list, checked when the call arrived, is pulled all
// at once here, and the call is rebuilt once every Read has completed.
// Errors are those of the read paths (EINVAL, ENOMEM, EIO) and of
// postChunkCtxt (ENOTCONN).
func (x *Xprt) processReadList(t *sched.Task, rq *Rqst, head *RecvCtxt) (ret int, err error) {
	r := t.CallV(kernel.SvcRdmaProcessReadList, "call_chunks", head.CallPCL.Count(), "read_chunks", head.ReadPCL.Count())
	defer func() {
		if err != nil {
			r(err)
		} else {
			r(ret)
		}
	}()
	cc := &head.CC
	x.ccInit(t, cc)
	cc.CQE = CQE{Name: kernel.SvcRdmaWcReadDone.Name(), done: func(t *sched.Task, wc verbs.WC) { x.wcReadDone(t, head, wc) }}
	cc.Owner = "read chunk"
	cc.SQECount = 0
	head.PageOff, head.CurPage, head.ReadBytes, head.PageCount = 0, 0, 0, 0
	x.reads = append(x.reads, head)
	if head.CallPCL.IsEmpty() {
		if head.ReadPCL.Count() == 1 {
			err = x.readDataItem(t, rq, head)
		} else {
			err = x.readMultipleChunks(t, rq, head)
		}
	} else {
		err = x.readSpecial(t, rq, head)
	}
	x.clearRqstPages(t, rq, head)
	if err != nil {
		return 0, err
	}
	t.Point(kernel.TraceSvcrdmaPostReadChunk, "cid", cc.CID, "sqecount", cc.SQECount)
	if err := x.postChunkCtxt(t, cc); err != nil {
		return 0, err
	}
	return 1, nil
}

// sources remembers, per SGL entry, where its bytes come from, so the
// view can colour them once the Read lands.
func (c *RWCtxt) sources(src string) {
	for i := range c.SGL[:c.NEnts] {
		c.SGL[i].src = src
	}
}

// markReadSources colours the pages a completed Read filled.
func (x *Xprt) markReadSources(head *RecvCtxt) {
	for _, c := range head.CC.RWCtxts {
		for _, s := range c.SGL[:c.NEnts] {
			s.Page.mark(s.Off, s.Len, s.src)
		}
	}
}

func sglString(sgl []SGE) string {
	return string(sglArg(sgl).AppendArg(make([]byte, 0, 2+len(sgl)*16)))
}

func pageNames(ps []*Page) string {
	return string(pagesArg(ps).AppendArg(make([]byte, 0, 2+len(ps)*6)))
}
