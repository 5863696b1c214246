package repl

// kernelFuncs lists the model's functions (their kernel twins' names) with
// what each does, for `until` completion. Functions seen in events are
// offered too, so a name missing here still completes once it has run.
func kernelFuncs() []Suggestion {
	return []Suggestion{
		{"svc_rdma_wc_receive", "Receive completion: queue the call for a thread"},
		{"svc_rdma_recvfrom", "a thread takes the next call (or finishes one whose Reads completed)"},
		{"svc_rdma_xdr_decode_req", "parse the transport header and its chunk lists"},
		{"svc_rdma_process_read_list", "pull the Read list: build and post the RDMA Reads"},
		{"svc_rdma_read_data_item", "one Read chunk holding a data item (a WRITE's payload)"},
		{"svc_rdma_read_multiple_chunks", "several Read chunks: copy inline ranges between them"},
		{"svc_rdma_read_call_chunk", "the call itself in a position-zero Read chunk"},
		{"svc_rdma_read_special", "pull a long call (RDMA_NOMSG)"},
		{"svc_rdma_read_chunk_range", "pull part of the call chunk"},
		{"svc_rdma_copy_inline_range", "copy inline bytes of the Send into rq_pages"},
		{"svc_rdma_build_read_chunk", "one Read chunk: a segment at a time"},
		{"svc_rdma_build_read_segment", "map one Read segment onto rq_pages: the SGL"},
		{"svc_rdma_get_rw_ctxt", "an rw ctxt from the cache, or a new one"},
		{"rdma_rw_ctx_init", "DMA-map the SGL and build the Read or Write WRs"},
		{"svc_rdma_post_chunk_ctxt", "post a chunk's WR chain on the Send Queue"},
		{"svc_rdma_wc_read_done", "Read completion: hand the call back to a thread"},
		{"svc_rdma_read_complete", "install the pulled pages as rq_pages"},
		{"nfsd3_proc_write", "the NFS WRITE procedure"},
		{"nfsd3_proc_read", "the NFS READ procedure"},
		{"nfsd3_proc_readdir", "the NFS READDIR procedure"},
		{"svc_rdma_result_payload", "note where a READ's payload goes (Write chunk)"},
		{"svc_rdma_sendto", "send the reply: Write list, Reply chunk, Send"},
		{"svc_rdma_send_write_list", "push every Write chunk"},
		{"svc_rdma_send_write_chunk", "RDMA Write one chunk's payload"},
		{"svc_rdma_xb_write", "Write from an xdr_buf (head, pages, tail)"},
		{"svc_rdma_build_writes", "build the Write WRs segment by segment"},
		{"svc_rdma_prepare_reply_chunk", "write the reply into the Reply chunk"},
		{"svc_rdma_send_reply_msg", "map the reply and post its Send"},
		{"svc_rdma_map_reply_msg", "build the Send's SGEs (or pull up)"},
		{"svc_rdma_post_send", "take a position and post the Send (the patch)"},
		{"svc_rdma_send_error_msg", "answer with RDMA_ERROR"},
		{"svc_rdma_write_done", "Write completion: release the chunk's rw ctxts"},
		{"svc_rdma_reply_done", "Reply chunk completion"},
		{"svc_rdma_wc_send", "Send completion: advance xpt_acked_pos"},
		{"svc_rdma_detach", "close the transport"},
		{"ib_post_send", "the provider takes a chain onto the Send Queue"},
		{"sg_set_page", "one SGL entry is set (trace point)"},
		{"svc_xprt_advance_acked", "xpt_acked_pos moves (trace point)"},
	}
}
