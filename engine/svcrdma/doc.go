// Package svcrdma models the Linux NFS/RDMA server transport as the seed
// svc_rdma_rw.c and the reply-position patch describe it, one trace point
// at a time.
//
// Every function of svc_rdma_rw.c has a Go twin named after it, with a doc
// comment that names the kernel function, so a learner can read the two
// side by side: buildReadSegment is svc_rdma_build_read_segment, and so on.
// Around them sit the parts the R/W code needs: the transport (Xprt, sized
// as svc_rdma_accept sizes it), the receive path (svc_rdma_recvfrom, the
// header checks of svc_rdma_xdr_decode_req through the shared codec in
// proto/rpcrdma, svc_rdma_read_complete), the reply path (svc_rdma_sendto,
// the pull-up decision, svc_rdma_post_send with sc_post_lock and
// sc_post_seq) and the completion handlers. rwcore.go models the parts of
// the core rdma_rw API that decide how many WQEs a transfer takes.
//
// The code reads as straight-line kernel code: it calls sched.Task.Point
// and Call at trace points and WaitUntil where the kernel sleeps; the
// stepping is done by whoever runs the scheduler (package engine). The
// model holds no UI concerns; it emits events.
//
// Behaviour selects the kernel: ProfileSeed is the seed file, bugs
// included; ProfileFix2025 has the Nov-2025 copy_inline_range fixes;
// ProfileNew2026 the 2026 changes the model knows. Each historical bug,
// B1 to B13, can be switched on or off alone; docs/kernel-model.md lists
// them with the seed's lines, and the observations O1-O6 the comments
// cite. Where the seed would crash the kernel, the model emits a Fault
// event saying what would have happened and abandons the request; the
// session goes on. Config.Positions applies the reply-position patch on
// any profile; Config.NoPostLock removes its lock to show the race it
// closes.
//
// Bytes are real: pages are DMA-mapped buffers the provider reads and
// writes, so a lesson shows misplaced data, not just claims it.
package svcrdma
