package kernel

// net/sunrpc/xprtrdma/rpc_rdma.c and verbs.c: the client, which the model does not trace.
var (
	RpcrdmaMarshalReq = mention("rpcrdma_marshal_req", "the client builds a call's transport header and chunk lists")
	IbPollCq          = mention("ib_poll_cq", "the client polls its CQ")
)
