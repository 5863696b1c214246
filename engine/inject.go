package engine

import (
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
)

// InjectPoint is one allocation or mapping the server can be made to fail.
type InjectPoint struct {
	Name, Func, Desc string
	counter          func(*svcrdma.Inject) *int
}

// InjectPoints lists the points Inject arms.
func InjectPoints() []InjectPoint {
	return []InjectPoint{
		{"rw_ctxt", kernel.SvcRdmaGetRwCtxt.Name(), "the chained SGL allocation fails (-ENOMEM)",
			func(in *svcrdma.Inject) *int { return &in.GetRWCtxt }},
		{"dma_map", kernel.RdmaRwCtxInit.Name(), "the DMA mapping fails (-EIO)",
			func(in *svcrdma.Inject) *int { return &in.DMAMap }},
		{"write_info", kernel.SvcRdmaWriteInfoAlloc.Name(), "the write_info allocation fails (-ENOMEM)",
			func(in *svcrdma.Inject) *int { return &in.WriteInfoAlloc }},
		{"send_ctxt", kernel.SvcRdmaSendCtxtGet.Name(), "no send ctxt can be allocated (-ENOMEM)",
			func(in *svcrdma.Inject) *int { return &in.SendCtxtGet }},
		{"post_send", kernel.IbPostSend.Name(), "the provider rejects the whole chain (-ENOMEM)",
			func(in *svcrdma.Inject) *int { return &in.PostSend }},
		{"post_send_tail", kernel.IbPostSend.Name(), "the provider takes all but the chain's last WR",
			func(in *svcrdma.Inject) *int { return &in.PostSendTail }},
		{"payload", kernel.SvcRdmaResultPayload.Name(), "the upper layer names a payload past the reply's end (-EMSGSIZE)",
			func(in *svcrdma.Inject) *int { return &in.BadPayload }},
	}
}

// Inject makes call n from now of p's function fail (0: none).
func (l *Lab) Inject(p InjectPoint, n int) { *p.counter(&l.Server.Inject) = n }
