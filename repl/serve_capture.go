package repl

import (
	"context"
	"fmt"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/replay"
	"github.com/rdmalab/rdmalab/viz/web"
)

// CaptureFrame is the class page's picture of a capture replayed to its
// end, with its packets, and what to call it (rdmalab serve --capture).
func CaptureFrame(capture string, maxExpand int64) (web.Frame, string, error) {
	tl, err := replay.OpenFile(capture, replay.ReadOptions{MaxExpand: maxExpand})
	if err != nil {
		return web.Frame{}, "", fmt.Errorf("%s: %w", capture, err)
	}
	defer tl.Close()
	p := tl.Player()
	p.End()
	f := web.Frame{Snapshot: p.Snapshot(), Events: p.Events(1000), Narration: p.Narration()}
	sel := 0
	if st := p.Step(); st != nil {
		sel = st.Frame
	}
	if f.Packets, err = capturePackets(capture, maxExpand, sel); err != nil {
		return web.Frame{}, "", err
	}
	return f, p.Describe(), nil
}

// servedPackets is how many packets of a capture the page lists, around
// the one it shows.
const servedPackets = 2000

// capturePackets decodes the list around frame sel (from 1), and that
// packet's tree and bytes.
func capturePackets(path string, maxExpand int64, sel int) (*web.Packets, error) {
	x, err := decode.OpenIndexWith(path, decode.IndexOptions{MaxExpand: maxExpand})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer x.Close()
	n, err := x.Wait(context.Background(), -1)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	first := max(0, min(sel-servedPackets/2, n-servedPackets))
	return IndexPackets(x, path, n, first+1, servedPackets, sel), nil
}

// IndexPackets is the class page's view of x's first total packets:
// count summaries from packet from (from 1), and packet sel's tree and
// bytes when it is one of them (0: none).
func IndexPackets(x *decode.Index, name string, total, from, count, sel int) *web.Packets {
	from = max(from, 1)
	p := &web.Packets{Name: name, Total: total, First: from}
	for i := from - 1; i < min(total, from-1+count); i++ {
		p.List = append(p.List, x.Summary(i))
	}
	if sel >= 1 && sel <= total {
		p.Selected = sel
		for _, d := range x.Detail(sel - 1) {
			p.Detail = append(p.Detail, web.DetailLine{Depth: d.Depth, Text: d.Text})
		}
		p.Bytes = x.Bytes(sel - 1)
	}
	return p
}
