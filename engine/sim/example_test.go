package sim_test

import (
	"fmt"

	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// Two nodes, one RC connection, one SEND: nothing moves until the learner
// delivers it.
func Example() {
	f := sim.NewFabric(sim.Config{Seed: 1})
	type side struct {
		pd verbs.PD
		cq verbs.CQ
		qp verbs.QP
	}
	open := func(node string) side {
		d, _ := f.NewDevice(node, sim.DefaultAttr())
		pd, _ := d.AllocPD()
		cq, _ := d.CreateCQ(16)
		qp, _ := pd.CreateQP(verbs.QPInitAttr{SendCQ: cq, RecvCQ: cq,
			Cap: verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1}})
		return side{pd, cq, qp}
	}
	client, server := open("client"), open("server")
	for _, c := range []struct {
		q    verbs.QP
		node string
		peer verbs.QP
	}{{client.qp, "server", server.qp}, {server.qp, "client", client.qp}} {
		c.q.Modify(verbs.QPAttr{State: verbs.QPSInit})
		c.q.Modify(verbs.QPAttr{State: verbs.QPSRTR, RemoteNode: c.node, DestQPNum: c.peer.Num()})
		c.q.Modify(verbs.QPAttr{State: verbs.QPSRTS, RNRRetry: 7})
	}

	msg := []byte("hello over rxe")
	smr, _ := client.pd.RegMR(msg, 0)
	buf := make([]byte, 64)
	rmr, _ := server.pd.RegMR(buf, verbs.AccessLocalWrite)
	server.qp.PostRecv(&verbs.RecvWR{WRID: 1, SGList: []verbs.SGE{{Addr: rmr.Addr(), Length: 64, LKey: rmr.LKey()}}})
	client.qp.PostSend(&verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, Signaled: true,
		SGList: []verbs.SGE{{Addr: smr.Addr(), Length: uint32(len(msg)), LKey: smr.LKey()}}})

	fmt.Println("pending:", len(f.Pending()))
	op, _ := f.DeliverNext()
	fmt.Println("delivered", op.Opcode, op.Bytes, "bytes at", op.Due, op.Status)
	wc := make([]verbs.WC, 1)
	server.cq.Poll(wc)
	fmt.Printf("server: %v %v %d bytes: %q\n", wc[0].Opcode, wc[0].Status, wc[0].ByteLen, buf[:wc[0].ByteLen])
	client.cq.Poll(wc)
	fmt.Println("client:", wc[0].Opcode, wc[0].Status)
	// Output:
	// pending: 1
	// delivered SEND 14 bytes at 2.012µs SUCCESS
	// server: RECV SUCCESS 14 bytes: "hello over rxe"
	// client: SEND SUCCESS
}
