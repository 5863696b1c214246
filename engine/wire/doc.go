// Package wire turns what the simulator executes (engine/sim Transfers) into
// the RoCEv2 frames Linux's rxe driver would put on an Ethernet link, so a
// lab session can be saved as a pcap that Wireshark and rdmalab decode open.
//
//	sim.Transfer ──► Emitter ──► Frame{Time, Data} ──► PcapWriter ──► pcap
//
// One Transfer is one work request as the wire saw it: the request packets
// (cut at the path MTU into FIRST/MIDDLE/LAST or ONLY, consecutive PSNs,
// RETH on the first, ImmDt or IETH on the last), and the responder's answer:
// ACKs for the packets that asked for one, RDMA READ responses, an RNR NAK
// or a NAK. Local operations (REG_MR, LOCAL_INV), flushes and failures found
// before transmission put nothing on the wire.
//
// What is rxe's, and where it comes from (drivers/infiniband/sw/rxe):
//
//   - AckReq (rxe_req.c init_req_packet): set on the last packet of every
//     message, and on a packet in the middle of a long one once more than
//     RXE_MAX_PKT_PER_ACK (64) packets went without it. The requester does
//     not look at IBV_SEND_SIGNALED: an unsignaled message is acknowledged
//     on the wire like a signaled one, only its completion is suppressed.
//   - ACKs (rxe_resp.c acknowledge): one for every request packet with
//     AckReq, naming its PSN, syndrome 0x1f (ACK, no credit count), and the
//     responder's MSN, which counts the messages completed. An ACK in the
//     middle of a message therefore repeats the MSN of the message before,
//     and the packets between two AckReqs are acknowledged together.
//     RDMA READ requests are answered by their responses, whose FIRST, LAST
//     and ONLY packets carry an AETH with the MSN counting the READ.
//   - NAKs: an RNR NAK (syndrome 0x20 | the RNR timer code of Table 45)
//     names the packet that needed a receive (a SEND's first, a WRITE with
//     immediate's last); a remote access or remote operational error NAK
//     names the first packet, an invalid request NAK the last.
//   - UDP source port (rdma_get_udp_sport in include/rdma/ib_verbs.h):
//     the flow label folded into 14 bits above 0xC000. RDMA-CM sets the
//     flow label of a connection to (source port * 31 + destination port)
//     of its IP addressing (cma_get_roce_udp_flow_label), so both
//     directions use one port; without a connection it comes from the two
//     QP numbers (rdma_calc_flow_label). MADs on QP1 use 0xC000 plus
//     hash_32(1, 14) = 55410, as the kernel captures show.
//   - IPv4: DF set, TTL 64, an identification counter per host, UDP
//     checksum zero (Annex A17.3.3), P_Key 0xffff.
//
// Addresses are fixed per node name (NodeAddr), times are virtual time on
// a fixed epoch, so the same session gives the same bytes.
package wire
