package kernel

// net/sunrpc/xprtrdma/svc_rdma_recvfrom.c: the server receives a call.
var (
	SvcRdmaWcReceive            = declare("svc_rdma_wc_receive", "Receive completion: queue the call for a thread", "byte_len", "recv", "status")
	TraceSvcrdmaWcRecv          = declare("svcrdma_wc_recv", "trace point: a Receive completed", "byte_len", "queued", "recv")
	TraceSvcrdmaWcRecvFlush     = declare("svcrdma_wc_recv_flush", "trace point: a Receive was flushed", "recv")
	TraceSvcrdmaWcRecvErr       = declare("svcrdma_wc_recv_err", "trace point: a Receive failed", "recv", "status")
	SvcRdmaRefreshRecvs         = declare("svc_rdma_refresh_recvs", "post Receives to replace the one consumed")
	SvcRdmaRecvCtxtPut          = declare("svc_rdma_recv_ctxt_put", "release a recv ctxt and the pages it held", "pages_released", "recv")
	SvcRdmaXdrDecodeReq         = declare("svc_rdma_xdr_decode_req", "parse the transport header and its chunk lists", "byte_len", "ret")
	TraceSvcrdmaDecodeBadvers   = declare("svcrdma_decode_badvers", "trace point: the header's version is not 1", "vers", "xid")
	TraceSvcrdmaDecodeShortErr  = declare("svcrdma_decode_short_err", "trace point: the header is shorter than it says")
	TraceSvcrdmaDecodeDrop      = declare("svcrdma_decode_drop", "trace point: the call is dropped", "proc", "xid")
	TraceSvcrdmaDecodeBadproc   = declare("svcrdma_decode_badproc", "trace point: the header's procedure is unknown", "proc", "xid")
	TraceSvcrdmaDecodeRqst      = declare("svcrdma_decode_rqst", "trace point: a call's transport header is decoded", "call_chunks", "credits", "hdrlen", "proc", "read_chunks", "reply_chunk", "write_chunks", "xid")
	SvcRdmaGetInvRkey           = declare("svc_rdma_get_inv_rkey", "pick the R_key the Send may invalidate remotely", "inv_rkey")
	SvcRdmaRecvfrom             = declare("svc_rdma_recvfrom", "a thread takes the next call (or finishes one whose Reads completed)", "ret", "thread")
	SvcRdmaReadComplete         = declare("svc_rdma_read_complete", "install the pulled pages as rq_pages", "page_count", "readbytes", "recv")
	SvcRdmaReadCompleteOne      = declare("svc_rdma_read_complete_one", "one Read chunk landed: head, pages, tail", "head", "len", "page_len", "tail")
	SvcRdmaReadCompleteMultiple = declare("svc_rdma_read_complete_multiple", "several Read chunks landed: the message is in the pages", "head", "len", "page_len", "pages")
	SvcRdmaReadCompletePzrc     = declare("svc_rdma_read_complete_pzrc", "a position-zero Read chunk landed: the message is in the pages", "head", "len", "page_len", "pages")
	SvcRdmaFlushRecvQueues      = declare("svc_rdma_flush_recv_queues", "release the calls still queued (transport teardown)", "read_complete_q", "rq_dto_q")
)
