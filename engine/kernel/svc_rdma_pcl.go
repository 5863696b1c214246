package kernel

// net/sunrpc/xprtrdma/svc_rdma_pcl.c: parsed chunk lists.
var (
	PclAllocCall  = mention("pcl_alloc_call", "collect the position-zero Read segments: the call chunk")
	PclAllocWrite = mention("pcl_alloc_write", "collect the Write list or the Reply chunk")
)
