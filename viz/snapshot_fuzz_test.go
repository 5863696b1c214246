package viz

import (
	"hash/fnv"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// FuzzSnapshot: any bytes given to the snapshot loader are refused with an
// error or drawn; drawing what it accepts never panics, stays in bounded
// memory (the loader bounds what drawing loops over) and puts no control
// rune in a cell. One layout (or one pane alone) is drawn per input,
// picked from its hash, so an execution costs one 80x24 frame.
func FuzzSnapshot(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"snapshot":{},"events":[]}`,
		`{"snapshot":{"settings":{"page_size":4096},"reads":[{"xid":"0x1","rc_curpage":1,"rc_pageoff":100,` +
			`"rw_ctxts":[{"id":1,"type":"MULTI_WR","nents":40,"first_sgl_nents":4,"chained":true,` +
			`"sgl":[{"page":"pg1","off":0,"len":4096,"source":"read chunk 0 seg 0"},{"page":"pg2","off":0,"len":100}],"where":"read cc"}],` +
			`"pages":[{"index":0,"name":"pg1","extents":[{"Off":0,"Len":4096,"Source":"inline"}]}]}]}}`,
		`{"snapshot":{"chains":[{"owner":"reply","task":"nfsd0","sqecount":3,"pos":2,"wrs":[{"opcode":"RDMA_WRITE","bytes":8},` +
			`{"opcode":"SEND","signaled":true,"cqe":"svc_rdma_wc_send"}]}],"sq":{"sc_sq_depth":4,"sc_sq_avail":1,"waiters":["nfsd1: x"]},` +
			`"cq":[{"side":"server","queue":"sq","opcode":"SEND","status":"SUCCESS","byte_len":8}]}}`,
		`{"snapshot":{"positions":{"enabled":true,"sc_post_seq":3,"xpt_acked_pos":2,"replies":[{"xid":"0x2","pos":2,"acked":true}]}}}`,
		`{"snapshot":{},"events":[{"seq":1,"task":"nfsd0","kind":"call","func":"svc_rdma_recvfrom","depth":2,"args":[{"key":"rw","val":"3"}]}],"narration":"a lesson"}`,
		// Claims the loader refuses (issue 9): depth 2^40, 2^53, 2^31-1,
		// positions near 2^64, nents 2^40.
		`{"snapshot":{},"events":[{"seq":1,"kind":"call","depth":1099511627776}]}`,
		`{"snapshot":{},"events":[{"seq":1,"kind":"note","depth":9007199254740992}]}`,
		`{"events":[{"seq":1,"kind":"point","depth":2147483647}]}`,
		`{"positions":{"enabled":true,"sc_post_seq":18446744073709551615,"xpt_acked_pos":1099511627776}}`,
		`{"rw_ctxts":{"in_use":[{"id":1,"nents":1099511627776,"first_sgl_nents":2,"sgl":[{"page":"p","len":1}],"where":"write chunk 0"}]}}`,
		"{\"threads\":[{\"name\":\"\\u001b[2J\",\"pages\":[{\"index\":1,\"name\":\"\\u202e\"}]}]}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := decodeSnapshot(data)
		if err != nil {
			return
		}
		h := fnv.New32a()
		h.Write(data)
		pick := int(h.Sum32() % uint32(int(numLayouts)+int(numPanes)))
		m := NewModel(len(fr.Events))
		m.Update(fr.Snapshot, fr.Events)
		m.Narration, m.Origin = fr.Narration, "snapshot fuzz"
		if pick < int(numLayouts) {
			m.View.Layout = Layout(pick)
		} else {
			m.View.Selected, m.View.Zoomed = PaneID(pick-int(numLayouts)), true
		}
		s := tcell.NewSimulationScreen("UTF-8")
		if err := s.Init(); err != nil {
			t.Fatal(err)
		}
		defer s.Fini()
		s.SetSize(80, 24)
		Draw(s, m, NewTheme(256))
		s.Show()
		if bad := unsafeCells(s); len(bad) > 0 {
			t.Fatalf("control runes in cells: %v", bad)
		}
	})
}
