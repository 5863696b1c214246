package kernel

// drivers/infiniband/core (verbs.c, cq.c, cma.c) and include/rdma/ib_verbs.h: the verbs svcrdma calls.
var (
	IbDmaMapSgtableAttrs = declare("ib_dma_map_sgtable_attrs", "DMA-map a scatterlist for the device")
	IbPostSend           = declare("ib_post_send", "the provider takes a chain onto the Send Queue", "chain", "ret", "wrs")
	IbProcessCq          = declare("__ib_process_cq", "poll the CQ and run each completion's handler", "note", "status", "wr_id")
	IbWcWithInv          = declare("IB_WC_WITH_INV", "a Receive completion says the client invalidated an R_key", "rkey")
	IbDrainQp            = declare("ib_drain_qp", "wait until every posted WR has completed or flushed")
	RdmaDisconnect       = declare("rdma_disconnect", "the QP goes to ERR: outstanding WRs flush")
)
