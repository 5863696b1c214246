// Package sim is rdmalab's embedded RDMA provider: a deterministic, pure-Go
// model of Soft-RoCE (the kernel's rxe driver) that implements the
// engine/verbs interfaces and moves real bytes between registered buffers.
//
// # The model
//
// A Fabric is one RoCE network. Each device opened on it (NewDevice) is a
// node with its own address space: registered buffers (RegMR), DMA-mapped
// buffers (PD.DMAMap) and fast-registration MRs (PD.AllocMR) get distinct,
// page-aligned device addresses starting at a seeded base. Keys follow
// rxe's layout: the upper 24 bits are an MR index, the low 8 bits a key
// byte that a REG_MR work request may change (ib_update_fast_reg_key).
//
// Posting a work request copies it into the send queue and schedules one
// operation. Nothing moves until the operation executes: DeliverNext runs
// the earliest one (virtual time, then posting order), checks keys, bounds
// and access on both sides exactly when rxe's requester and responder would,
// copies the bytes, and writes completions on both sides. With Auto set,
// every post runs the fabric until it is idle, so completions are there
// when PostSend returns.
//
// Virtual time: an operation is due at
//
//	max(now, the previous operation of its QP) + bytes*8/LinkRate + Latency
//
// (an RDMA READ pays the latency twice: request out, response back; local
// operations such as REG_MR and LOCAL_INV cost nothing). QPs do not share
// the link, so a small operation on one QP overtakes a large one on another.
//
// Every executed operation is handed to the Tap as a Transfer: opcode,
// PSN range, path MTU, remote address and rkey, the payload carried, the
// responder's answer (ACK, RNR NAK, NAK code) and MSN. That is the seam
// where a packet builder turns operations into Ethernet/IPv4/UDP/BTH
// frames.
//
// # Completion rules
//
// Completions of one QP come in posting order. A signaled WR that succeeds
// writes one completion and retires every unsignaled WR before it; until
// then those unsignaled WRs hold their send-queue slots, as the verbs
// contract says. A WR that fails always writes an error completion (even
// when unsignaled), which likewise retires the WRs before it: they ran
// successfully. The QP then goes to ERR and every WR still outstanding on
// it, signaled or not, and every posted receive complete with
// WR_FLUSH_ERR, immediately and in posting order. Later posts to a QP in
// ERR are accepted and become operations that complete with WR_FLUSH_ERR
// when delivered; later receives are flushed at once.
//
// Errors a responder detects follow rxe's responder: a bad rkey, range or
// access is NAKed (REM_ACCESS_ERR at the requester) and, as in rxe's class
// C/A error handling, the responder QP goes to ERR as well; a SEND longer
// than the receive gives LOC_LEN_ERR on the receiver and REM_INV_REQ_ERR on
// the sender; a receive whose SGE fails its lkey gives LOC_PROT_ERR on the
// receiver and REM_OP_ERR on the sender. A SEND that finds no receive is
// RNR NAKed and retried every RNRTimer, up to the QP's rnr_retry (7 means
// forever), then fails with RNR_RETRY_EXC_ERR. A request to a peer QP that
// is missing, not connected back, or not in RTR/RTS is dropped, which the
// requester sees as RETRY_EXC_ERR.
//
// # What differs from real rxe
//
//   - Queue sizes are granted exactly as asked (rxe rounds queues up to a
//     power of two minus one) so that "the send queue is full" happens at
//     the depth the learner chose; CQs likewise hold exactly cqe entries.
//     A device opened with GrantSendSGE grants more send SGEs than asked,
//     as mlx5-like providers do, and its QPs enforce the grant.
//   - A full CQ drops the completion and counts an overrun (CQOverruns);
//     rxe also drops it and raises IB_EVENT_CQ_ERR, which is not modelled.
//   - QP numbers are unique across the fabric, not per device; the peer's
//     rq_psn is recorded but PSN mismatches are not simulated, and
//     transport retries (retry_cnt) cost no virtual time.
//   - Operations of one QP are serialized: no pipelining of several
//     messages, no max_rd_atomic limit, no link shared between QPs.
//   - An RC QP may only connect to a QP on another device (no loopback).
//   - A fast-registration MR has a fixed iova chosen at AllocMR; REG_MR maps
//     its pages back to back from there (keeping the first page offset).
//     The local DMA lkey covers DMA-mapped buffers only. DMAUnmap does not
//     unbind pages a fast-registration MR still maps.
//   - LOCAL_INV and SEND_WITH_INV only invalidate fast-registration MRs
//     (as rxe_invalidate_mr), and a REG_MR needs the MR free (invalidated
//     or never registered); failures of local operations complete with
//     LOC_QP_OP_ERR, as in rxe_do_local_ops.
//   - Every successful send completion carries the message length in
//     ByteLen, as rxe fills it.
//   - Modify to RTS keeps the seeded initial PSN when SQPSN is 0.
//   - Each RNR retry is an execution of its own: FailNth counts it and the
//     Tap sees a Transfer for it.
//   - Inline data and atomics are not modelled.
//
// A Fabric and everything made from it is guarded by one mutex, so it may
// be used from several goroutines; it starts none of its own, reads no wall
// clock, and never iterates a map to decide an order, so the same seed and
// the same sequence of calls give the same QP numbers, keys, PSNs,
// addresses, completions and virtual times.
//
// The engine drives a Fabric through Provider, its verbs.Provider: the
// pending operations it lists and delivers are verbs.Op, and what only a
// simulation can do (declared faults, a chosen completion status, a link
// whose rate and latency the learner sets, the Tap) are its capabilities.
package sim
