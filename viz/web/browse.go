package web

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"strconv"

	"github.com/rdmalab/rdmalab/proto/safe"
)

// PacketBrowser is a Source whose capture a page may read on its own
// request, one packet or one page of the list at a time (never changing
// the lab): the live session's open capture, a replay's.
type PacketBrowser interface {
	// BrowsePackets is the capture's packets from number from (from 1),
	// at most count of them, and packet sel's tree and bytes (0: none);
	// nil when no capture is open.
	BrowsePackets(from, count, sel int) *Packets
}

// browsePage is how many packets one page of the list holds.
const browsePage = 200

// browseView is what a page asked to see of the capture: a packet's tree
// and hex, or a page of the list. Every string escaped for display.
type browseView struct {
	Name       string
	Total      int
	First      int
	List       []string
	Prev, Next int // the first packets of the pages around (0: none)
	Selected   int
	Detail     []DetailLine
	Hex        string
}

// browse reads what a request asks (packet N, or the page from N) from
// src; the error is the answer's text for a 404.
func browse(src Source, packet, from string) (*browseView, error) {
	b, ok := src.(PacketBrowser)
	if !ok {
		return nil, fmt.Errorf("no capture is open in this session")
	}
	num := func(what, s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || len(s) > 12 {
			return 0, fmt.Errorf("%s %q: packets count from 1", what, safe.Text(s))
		}
		return n, nil
	}
	sel, first, count := 0, 1, browsePage
	var err error
	if packet != "" {
		if sel, err = num("packet", packet); err != nil {
			return nil, err
		}
		first, count = sel, 0
	} else if from != "" {
		if first, err = num("from", from); err != nil {
			return nil, err
		}
	}
	p := b.BrowsePackets(first, count, sel)
	switch {
	case p == nil:
		return nil, fmt.Errorf("no capture is open in this session")
	case packet != "" && p.Selected != sel:
		return nil, fmt.Errorf("no packet %d: %s has %d packets (1 to %d)", sel, safe.Text(p.Name), p.Total, p.Total)
	case packet == "" && first > max(p.Total, 1):
		return nil, fmt.Errorf("no packet %d: %s has %d packets (1 to %d)", first, safe.Text(p.Name), p.Total, p.Total)
	}
	v := &browseView{Name: safe.Text(p.Name), Total: p.Total, First: max(p.First, 1), Selected: p.Selected}
	if packet == "" {
		for _, l := range p.List {
			v.List = append(v.List, safe.Display(l))
		}
		if v.First > 1 {
			v.Prev = max(1, v.First-browsePage)
		}
		if next := v.First + len(v.List); next <= p.Total {
			v.Next = next
		}
		return v, nil
	}
	for _, d := range p.Detail {
		v.Detail = append(v.Detail, DetailLine{Depth: min(max(d.Depth, 0), 12), Text: safe.Display(d.Text)})
	}
	v.Hex = hexDump(p.Bytes)
	return v, nil
}

// browseHTML renders what r asks of src (?packet=N or ?from=N; nothing
// asked: ""), or the reason there is none, as a fragment of the page.
func (s *Server) browseHTML(r *http.Request) (template.HTML, int) {
	q := r.URL.Query()
	packet, from := q.Get("packet"), q.Get("from")
	if packet == "" {
		packet = q.Get("n")
	}
	if packet == "" && from == "" && r.URL.Path == "/" {
		return "", http.StatusOK
	}
	s.mu.Lock()
	src := s.src
	s.mu.Unlock()
	var v *browseView
	var err error
	if r.URL.Path == "/packet" && packet == "" {
		err = fmt.Errorf("which packet? /packet?n=N, N from 1")
	} else {
		v, err = browse(src, packet, from)
	}
	var buf bytes.Buffer
	code := http.StatusOK
	if err != nil {
		code = http.StatusNotFound
		_ = templates.ExecuteTemplate(&buf, "browse-error", err.Error())
	} else if err := templates.ExecuteTemplate(&buf, "browse", v); err != nil {
		code = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`<p class="bad">cannot draw this packet</p>`)
	}
	return template.HTML(buf.String()), code // rendered by html/template: escaped
}

// browseFragment answers app.js's /packet?n=N and /packets?from=N: the
// fragment alone.
func (s *Server) browseFragment(w http.ResponseWriter, r *http.Request) {
	h, code := s.browseHTML(r)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(h))
}
