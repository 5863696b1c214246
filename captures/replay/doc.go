// Package replay turns a capture of NFS/RDMA traffic into the server's work,
// step by step: what svcrdma must have done for the packets on the wire to
// look the way they do.
//
//	capture ──► decode.Read ──► records ──► builder ──► Timeline
//	                (Analyzer: RPCs, chunks,            Steps: frame, narration
//	                 READ/WRITE attribution,            in the kernel's words
//	                 ACKs and MSNs)                     (trace.Events), and the
//	                                                    change to the picture
//	Player ──► snap.Snapshot at any step: Reads, Chains, Positions, Calls
//
// The builder runs behind the decoder, streaming: a record becomes steps
// once what its step draws is known (a READ request draws the chain the
// server posted whole, known once the reply comes; a WRITE or the Send the
// whole reply chain), at least a few thousand records behind and at most
// maxLook. So the first step comes at once on any capture, a transcript
// (Transcribe) keeps no steps, and a view's Timeline (OpenFile, or
// OpenIndex to follow the pass of the decode.Index that fills the view's
// Packets pane, so the file is read once) is built as its Player goes,
// with checkpoints (every transport's picture every ckEvery steps,
// thinned out to maxCheckpoints) to go back from.
//
// What a Timeline keeps does not grow with the capture but by a few bytes
// a step: each step's change to the picture is an op (bytes, not a
// closure), and the steps and their events are kept in compressed blocks
// of logBlock, in memory up to spillAfter bytes and then in a spill file
// (temporary, unlinked at once). A player going back restores the
// nearest checkpoint and applies the ops after it, the same bytes the
// builder applied going forward; the decoder's RPCs are let go once a
// capture is built.
//
// Every queue pair that carries RPC-over-RDMA is a transport (Conn), with
// its own picture: its calls, Read lists, chains and positions, as an
// svcxprt_rdma has its own. Steps of all transports interleave as on the
// wire; ReadOptions.QP replays one, and Player.Follow steps through one.
//
// A Step is one packet that changes the server's picture: a call arriving
// (svc_rdma_recvfrom), the Read list posted as one chain of RDMA READs
// (svc_rdma_process_read_list), each READ response landing in rc_pages,
// the last one completing the chain (svc_rdma_wc_read_done), the reply
// chain of RDMA WRITEs and the Send posted together (svc_rdma_sendto) and
// each of its packets, and the client's ACKs whose MSNs acknowledge the
// Sends and advance xpt_acked_pos. The ACKs the server's HCA sends for the
// client's SENDs change nothing the server's software sees, and are not
// steps.
//
// The state is a snap.Snapshot, so the view's panes draw a replay as
// they draw the simulator. What the capture cannot tell (the server's CQ,
// its Send Queue depth, its page size, its source pages for WRITEs and
// Sends, anything before a capture that starts mid-stream) is left empty
// and said once, in Timeline.Unknown.
//
// A capture is a claim. The lengths, offsets and counts it carries are
// numbers the steps quote, never sizes: bytes a READ or WRITE places
// outside the segment its call advertised are an anomaly its step names,
// with the frame, and are not placed; a Read list's pages are all listed
// only when the capture holds their bytes (else those planned or landed
// in); and a picture keeps the newest calls, chains and Read lists, since
// each checkpoint copies it. What goes to a terminal (the text transcript,
// what a Player hands a view) is escaped; the Timeline's own strings and
// the JSON transcript are as the decoder gave them.
package replay
