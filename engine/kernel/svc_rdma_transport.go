package kernel

// net/sunrpc/xprtrdma/svc_rdma_transport.c: the transport's life.
var (
	SvcRdmaFree       = declare("svc_rdma_free", "tear the transport down: drain the QP, release what is left", "xpt_id")
	SvcRdmaDetach     = declare("svc_rdma_detach", "close the transport", "xpt_id")
	SvcRdmaAccept     = mention("svc_rdma_accept", "accept a connection (a replayed capture shows it)")
	SvcRdmaCmaHandler = mention("svc_rdma_cma_handler", "a connection-manager event (a replayed capture shows it)")
	HandleConnectReq  = mention("handle_connect_req", "a connection request arrives (a replayed capture shows it)")
	RdmaAccept        = mention("rdma_accept", "the server accepts the connection (a replayed capture shows it)")
)
