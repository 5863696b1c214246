package engine

import "github.com/rdmalab/rdmalab/engine/svcrdma"

// InjectPoint is one allocation or mapping the server can be made to fail.
type InjectPoint struct {
	Name, Func, Desc string
	counter          func(*svcrdma.Inject) *int
}

// InjectPoints lists the points Inject arms.
func InjectPoints() []InjectPoint {
	return []InjectPoint{
		{"rw_ctxt", "svc_rdma_get_rw_ctxt", "the chained SGL allocation fails (-ENOMEM)",
			func(in *svcrdma.Inject) *int { return &in.GetRWCtxt }},
		{"dma_map", "rdma_rw_ctx_init", "the DMA mapping fails (-EIO)",
			func(in *svcrdma.Inject) *int { return &in.DMAMap }},
		{"write_info", "svc_rdma_write_info_alloc", "the write_info allocation fails (-ENOMEM)",
			func(in *svcrdma.Inject) *int { return &in.WriteInfoAlloc }},
		{"send_ctxt", "svc_rdma_send_ctxt_get", "no send ctxt can be allocated (-ENOMEM)",
			func(in *svcrdma.Inject) *int { return &in.SendCtxtGet }},
		{"post_send", "ib_post_send", "the provider rejects the whole chain (-ENOMEM)",
			func(in *svcrdma.Inject) *int { return &in.PostSend }},
		{"post_send_tail", "ib_post_send", "the provider takes all but the chain's last WR",
			func(in *svcrdma.Inject) *int { return &in.PostSendTail }},
		{"payload", "svc_rdma_result_payload", "the upper layer names a payload past the reply's end (-EMSGSIZE)",
			func(in *svcrdma.Inject) *int { return &in.BadPayload }},
	}
}

// Inject makes call n from now of p's function fail (0: none).
func (l *Lab) Inject(p InjectPoint, n int) { *p.counter(&l.Server.Inject) = n }
