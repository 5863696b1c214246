// Package ibv is rdmalab's real provider: the engine/verbs interfaces over
// libibverbs (cgo), so that the same model, REPL commands and lessons
// drive a real device — Soft-RoCE (rxe) or an HCA — instead of the sim.
//
// It is behind a build tag: `go build -tags ibv` (cgo and Debian's
// libibverbs-dev) builds it; without the tag, Open and Devices return
// ErrNotBuilt and the binary needs no C toolchain or library.
//
// # What it does
//
// Open opens one device for both nodes, or one each ("server" and
// "client"), and reads its attributes (ibv_query_device, ibv_query_port):
// a lab on it starts from them (engine.DeviceDefaults), so the model
// sizes its queues and counts its WQEs by the device's max_send_sge,
// max_sge_rd and max_qp_wr, or by the lower values the learner sets. A
// QP asks create_qp for the send SGEs qp_max_send_sge grants, as a
// provider that grants more than asked would.
// Each node gets a PD, its CQs, an RC QP and its memory, registered with
// ibv_reg_mr over the model's own Go buffers (the heap does not move; the
// MR keeps the buffer alive until Dereg), so the bytes the device moves
// land where the model and the REPL read them. The QPs connect RESET →
// INIT → RTR → RTS towards each other with the RoCEv2 GID of each port
// chosen automatically (PickGID: the IPv4-mapped one), a path MTU no
// larger than the port's active MTU, and PSNs from the QP numbers (psnFor).
//
// # Who decides when the model sees a completion
//
// The device runs a work request the moment it is posted: its bytes are in
// memory a few microseconds later. Its completions do not go to the model
// at once: the tracker keeps each one with the operation (posted send WR)
// it belongs to, and a model CQ polls only those of operations the learner
// delivered (DeliverNext, the REPL's complete). A SEND's operation owns the
// Receive it consumed at the peer, so one complete delivers both ends, as
// on the sim. An unsignaled WR writes no completion when it succeeds: it
// counts as done when a later WR of its QP completes (RC completes in
// order) or, with nothing after it, once the device has been quiet for
// Config.Settle. Flushes (WR_FLUSH_ERR) are delivered at once, behind the
// failure that caused them, as the sim does.
//
// # Where it differs from the sim, and says so
//
//   - The kernel verbs svcrdma uses that user space lacks: the PD's local
//     DMA lkey and DMA mapping are emulated (DMAMap registers an MR;
//     PostSend puts that MR's lkey where an SGE names the local DMA lkey);
//     fast-registration MRs, REG_MR and RDMA_READ_WITH_INV cannot be, so
//     rdma_rw's MR path (iwarp, force_mr) runs on the sim only.
//   - Faults are provoked, not declared: FailNth sends the chosen RDMA
//     WRITE or READ 1 GiB past its remote address, outside the peer's MR
//     (REM_ACCESS_ERR, NAKed by the real responder; the rkey stays, so a
//     capture ties it to its segment), or a WR with a wrong lkey
//     (LOC_PROT_ERR), counted among WRs posted from now; other statuses and
//     `complete --status` need the sim.
//   - There is no virtual wire: no Transfers, no capture of the lab's own;
//     the device's traffic is captured where it is, on the netdev of its
//     port's GID (NetdevOf; the REPL's capture start, or tcpdump on rxe's
//     netdev). link_rate and latency are the sim's only.
//   - Numbers: QP numbers, keys, addresses (real virtual addresses), PSNs
//     and the clock (wall time since Open) are the device's.
//
// test/rxe proves it on Soft-RoCE inside qemu, lessons and capture
// included; its README says how.
package ibv
