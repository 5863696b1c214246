package engine_test

import (
	"fmt"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// A 10000-byte NFS WRITE and its READ, driven one completion at a time,
// printing the outline of what the server does: each svcrdma function down
// to two levels, and what crossed the wire.
func Example() {
	l, err := engine.New(engine.DefaultSettings())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	l.Subscribe(func(e trace.Event) {
		if (e.Kind == trace.Call && e.Depth <= 1) || e.Kind == trace.Note || e.Kind == trace.Fault {
			fmt.Println(e)
		}
	})
	run := func() {
		for {
			l.Continue()
			if _, err := l.Complete(1, nil); err != nil {
				return
			}
		}
	}
	l.Write(10000, engine.ChunkOpts{})
	run()
	l.Read(10000, engine.ChunkOpts{})
	run()
	s := l.Snapshot()
	fmt.Printf("sc_post_seq %d, xpt_acked_pos %d, sc_sq_avail %d/%d\n",
		s.Positions.PostSeq, s.Positions.AckedPos, s.SQ.Avail, s.SQ.Depth)
	// Output:
	// client • rpcrdma_marshal_req: xid 0x5eed0010 NFSv3 WRITE 10000: RDMA_MSG, read list 1, write list 0, reply chunk false, 124 inline bytes
	// wire   • execute: client qp 14179254 SEND 176B
	// client • ib_poll_cq: Send acknowledged by the server's HCA
	// cq     → svc_rdma_wc_receive(recv=1 status=SUCCESS byte_len=176)
	// nfsd0  → svc_rdma_recvfrom(thread=nfsd0)
	// nfsd0    → svc_rdma_xdr_decode_req(byte_len=176)
	// nfsd0    → svc_rdma_process_read_list(call_chunks=0 read_chunks=1)
	// wire   • execute: server qp 11798938 RDMA_READ 10000B remote 0x11ed76e83000 rkey 0x49cd25f0
	// cq     → svc_rdma_wc_read_done(cid=1 status=SUCCESS)
	// nfsd0  → svc_rdma_recvfrom(thread=nfsd0)
	// nfsd0    → svc_rdma_read_complete(recv=1 page_count=3 readbytes=10000)
	// nfsd0  → nfsd3_proc_write(xid=0x5eed0010 data_in_pages=10000)
	// nfsd0  → svc_rdma_sendto(xid=0x5eed0010 len=52)
	// nfsd0    → svc_rdma_send_reply_msg(send=1)
	// nfsd0  → svc_rdma_cc_release(cid=1 sqecount=1 ctxts=1 dir=DMA_FROM_DEVICE)
	// wire   • execute: server qp 11798938 SEND 80B
	// client • ib_poll_cq: xid 0x5eed0010: RDMA_MSG reply, 52 inline bytes, 0 write chunks, reply chunk 0 bytes
	// cq     → svc_rdma_wc_send(send=1 status=SUCCESS pos=1)
	// client • rpcrdma_marshal_req: xid 0x5eed0011 NFSv3 READ 10000: RDMA_MSG, read list 0, write list 1, reply chunk false, 116 inline bytes
	// wire   • execute: client qp 14179254 SEND 168B
	// client • ib_poll_cq: Send acknowledged by the server's HCA
	// cq     → svc_rdma_wc_receive(recv=2 status=SUCCESS byte_len=168)
	// nfsd0  → svc_rdma_recvfrom(thread=nfsd0)
	// nfsd0    → svc_rdma_xdr_decode_req(byte_len=168)
	// nfsd0  → nfsd3_proc_read(xid=0x5eed0011 args=48)
	// nfsd0    → svc_rdma_result_payload(offset=128 length=10000)
	// nfsd0  → svc_rdma_sendto(xid=0x5eed0011 len=10128)
	// nfsd0    → svc_rdma_send_write_list(chunks=1)
	// nfsd0    → svc_rdma_send_reply_msg(send=1)
	// wire   • execute: server qp 11798938 RDMA_WRITE 10000B remote 0x11ed76e8b000 rkey 0xf4e555ce
	// cq     → svc_rdma_write_done(cid=3 status=SUCCESS)
	// cq       → svc_rdma_cc_release(cid=3 sqecount=1 ctxts=1 dir=DMA_TO_DEVICE)
	// wire   • execute: server qp 11798938 SEND 180B
	// client • ib_poll_cq: xid 0x5eed0011: RDMA_MSG reply, 128 inline bytes, 1 write chunks, reply chunk 0 bytes
	// cq     → svc_rdma_wc_send(send=1 status=SUCCESS pos=2)
	// sc_post_seq 2, xpt_acked_pos 2, sc_sq_avail 1610/1610
}
