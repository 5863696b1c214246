package svcrdma

// The 2026 reply path (profile new2026; see docs/kernel-model.md): Write
// chunks are no longer posted on their own; their WRs are chained in front
// of the Send, so one Send completion returns every SQE of the reply and
// releases every resource.

import (
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/sched"
)

// prepareWriteList is svc_rdma_prepare_write_list (new2026): build each
// Write chunk's RDMA Writes and link them ahead of the Send.
func (x *Xprt) prepareWriteList(t *sched.Task, rctxt *RecvCtxt, s *SendCtxt, xdr *XdrBuf) (err error) {
	defer t.Call(kernel.SvcRdmaPrepareWriteList, "chunks", rctxt.WritePCL.Count())(&err)
	for _, chunk := range rctxt.WritePCL.Chunks {
		if chunk.PayloadLength == 0 {
			break
		}
		if err := x.prepareWriteChunk(t, s, chunk, xdr); err != nil {
			return err
		}
	}
	return nil
}

// prepareWriteChunk is svc_rdma_prepare_write_chunk (new2026).
func (x *Xprt) prepareWriteChunk(t *sched.Task, s *SendCtxt, chunk *Chunk, xdr *XdrBuf) (err error) {
	defer t.Call(kernel.SvcRdmaPrepareWriteChunk, "chunk", chunk.Index, "position", chunk.Position, "payload", chunk.PayloadLength)(&err)
	payload, ok := xdr.subsegment(int(chunk.Position), int(chunk.PayloadLength))
	if !ok {
		return errMsgSize
	}
	info := x.writeInfoAlloc(t, chunk)
	if info == nil {
		return errNoMem
	}
	// The info lives with the send ctxt from now on, whatever happens.
	s.WriteInfos = append(s.WriteInfos, info)
	n, err := x.xbWrite(t, &payload, info)
	if err != nil {
		return err
	}
	if n != payload.Len {
		return errInval
	}
	cc := &info.CC
	if s.SQECount+cc.SQECount > x.SQDepth {
		t.Pointf(kernel.SvcRdmaPrepareWriteChunk, "the reply would need %d SQEs, more than sc_sq_depth %d", s.SQECount+cc.SQECount, x.SQDepth)
		return errInval
	}
	first := x.chainCC(cc, s.WRChain)
	s.WRChain = first
	s.SQECount += cc.SQECount
	t.Point(kernel.TraceSvcrdmaPostWriteChunk, "cid", cc.CID, "sqecount", cc.SQECount, "chain", chainArg{first})
	return nil
}

// writeListRelease releases the Write chunks chained to a Send (new2026).
func (x *Xprt) writeListRelease(t *sched.Task, s *SendCtxt) {
	for _, info := range s.WriteInfos {
		x.writeInfoFree(t, info)
	}
	s.WriteInfos = nil
}
