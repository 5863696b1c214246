package kernel

// drivers/infiniband/core/rw.c: the RDMA R/W API.
var (
	RdmaRwCtxInit      = declare("rdma_rw_ctx_init", "DMA-map the SGL and build the Read or Write WRs", "dir", "remote_addr", "ret", "rkey", "sg_cnt")
	WarnOnOnce         = declare("WARN_ON_ONCE", "a kernel warning: a case the code does not expect")
	RdmaRwInitSingleWr = declare("rdma_rw_init_single_wr", "one WR with one SGE", "wr")
	RdmaRwInitMapWrs   = declare("rdma_rw_init_map_wrs", "WRs of up to max_sge SGEs each", "max_sge", "nr_ops")
	IbMrPoolGet        = declare("ib_mr_pool_get", "take an MR from the QP's pool")
	IbMapMrSg          = declare("ib_map_mr_sg", "map SGL entries into an MR")
	RdmaRwInitOneMr    = declare("rdma_rw_init_one_mr", "one MR registration (REG_MR, and LOCAL_INV when needed)", "bytes", "entries", "local_inv", "mr")
	RdmaRwCtxWrs       = declare("rdma_rw_ctx_wrs", "link a context's WRs into a chain", "chain")
)
