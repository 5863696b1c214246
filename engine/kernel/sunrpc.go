package kernel

// net/sunrpc/svc.c and svc_xprt.c: the RPC server above the transport.
var (
	SvcRecv              = mention("svc_recv", "a thread sleeps until a transport has work (a wait, not a traced call)")
	SvcProcess           = declare("svc_process", "run the RPC call: decode its header, call the procedure")
	SvcXprtEnqueue       = declare("svc_xprt_enqueue", "XPT_DATA set: a thread will take the transport")
	SvcXprtReceived      = declare("svc_xprt_received", "the thread is done with the transport's next call", "more_work")
	SvcXprtDeferredClose = declare("svc_xprt_deferred_close", "mark XPT_CLOSE: a thread will close the transport")
	SvcXprtAdvanceAcked  = declare("svc_xprt_advance_acked", "xpt_acked_pos moves (the patch)", "pos", "was", "xpt_acked_pos")
)
