package web

import (
	"bytes"
	"embed"
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/proto/safe"
)

//go:embed templates/*.tmpl
var templateFiles embed.FS

// templates are parsed once; they are never changed after.
var templates = template.Must(template.New("").Funcs(template.FuncMap{"add": func(a, b int) int { return a + b }, "prose": prose}).ParseFS(templateFiles, "templates/*.tmpl"))

// pageEvents is how many of the newest events a page lists.
const pageEvents = 60

// body is what the page's live part shows of a frame.
type body struct {
	Session   string
	Seq       uint64
	Origin    string
	Narration string
	Clock     string
	Behaviour string
	Acked     uint64
	WRs       int
	SQAvail   int
	SQDepth   int
	Closing   bool
	Dead      bool
	Calls     []snap.Call
	Figures   []figure
	Events    []string
	Packets   *packetsView
	Lesson    *snap.Lesson // every string escaped for display
}

// packetsView is the packets section: every string escaped for display.
type packetsView struct {
	Name         string
	Total, First int
	List         []string
	Selected     int
	Detail       []DetailLine
	Hex          string
	Browse       bool // each packet links to its tree (?packet=N)
	More         int  // the first packet after the list, for ?from= (0: none)
}

// bodyOf lays out f; every string from the frame is escaped for display
// (controls made visible) here and for HTML by the template.
func bodyOf(f Frame, origin, session string, seq uint64) body {
	s := &f.Snapshot
	b := body{
		Session: session, Seq: seq, Origin: safe.Text(origin),
		Narration: displayLines(f.Narration),
		Clock:     safe.Text(s.Clock), Behaviour: safe.Text(s.Behaviour),
		Acked: s.Positions.AckedPos, WRs: wrCount(s),
		SQAvail: s.SQ.Avail, SQDepth: s.SQ.Depth,
		Closing: s.XprtClosing, Dead: s.XprtDead,
		Figures: figures(s),
	}
	for _, c := range s.Calls {
		b.Calls = append(b.Calls, snap.Call{XID: safe.Text(c.XID), Label: safe.Text(c.Label), Proc: safe.Text(c.Proc), State: safe.Text(c.State), Status: safe.Text(c.Status), Err: safe.Text(c.Err)})
	}
	if l := f.Lesson; l != nil {
		c := *l
		c.Name, c.Title, c.Command = safe.Text(l.Name), safe.Text(l.Title), safe.Text(l.Command)
		c.Narration, c.Ended, c.Outro = displayLines(l.Narration), safe.Text(l.Ended), displayLines(l.Outro)
		if l.Last != nil {
			last := snap.StepResult{Command: safe.Text(l.Last.Command)}
			for _, v := range l.Last.Verdicts {
				last.Verdicts = append(last.Verdicts, snap.Verdict{OK: v.OK, Say: safe.Text(v.Say)})
			}
			c.Last = &last
		}
		b.Lesson = &c
	}
	if p := f.Packets; p != nil {
		v := &packetsView{Name: safe.Text(p.Name), Total: p.Total, First: max(p.First, 1), Selected: p.Selected, Browse: f.Browsable}
		if next := v.First + len(p.List); f.Browsable && next <= p.Total {
			v.More = next
		}
		for _, l := range p.List {
			v.List = append(v.List, safe.Display(l))
		}
		for _, d := range p.Detail {
			v.Detail = append(v.Detail, DetailLine{Depth: min(max(d.Depth, 0), 12), Text: safe.Display(d.Text)})
		}
		v.Hex = hexDump(p.Bytes)
		b.Packets = v
	}
	evs := f.Events[max(0, len(f.Events)-pageEvents):]
	for _, e := range evs {
		b.Events = append(b.Events, safe.Display(e.String()))
	}
	return b
}

// renderBody writes the live part of the page for f.
func renderBody(w io.Writer, b body) error {
	return templates.ExecuteTemplate(w, "body", b)
}

// svgPart is one figure placed in a standalone SVG.
type svgPart struct {
	Y int
	F figure
}

// WriteSVG writes f's drawings as one standalone SVG document: what
// `save --svg` writes and the page's "save as SVG" serves.
func WriteSVG(w io.Writer, f Frame) error {
	var parts []svgPart
	y := 8
	for _, fig := range figures(&f.Snapshot) {
		parts = append(parts, svgPart{Y: y, F: fig})
		if fig.Empty != "" {
			y += 52
		} else {
			y += fig.H + 40
		}
	}
	var buf bytes.Buffer
	// html/template would escape the declaration: it is written here.
	buf.WriteString(xml.Header)
	err := templates.ExecuteTemplate(&buf, "svg", struct {
		W, H  int
		Parts []svgPart
	}{width, y, parts})
	if err != nil {
		return fmt.Errorf("draw the SVG: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// maxHex is how many bytes of a packet the page dumps.
const maxHex = 4096

// hexDump is b as offset, 16 bytes in hex and their printable ASCII a line.
func hexDump(b []byte) string {
	var out []byte
	for off := 0; off < min(len(b), maxHex); off += 16 {
		row := b[off:min(off+16, len(b))]
		out = fmt.Appendf(out, "%04x  ", off)
		for i := range 16 {
			if i < len(row) {
				out = fmt.Appendf(out, "%02x ", row[i])
			} else {
				out = append(out, "   "...)
			}
		}
		out = append(out, ' ')
		for _, c := range row {
			if c < 0x20 || c > 0x7e {
				c = '.'
			}
			out = append(out, c)
		}
		out = append(out, '\n')
	}
	if len(b) > maxHex {
		out = fmt.Appendf(out, "… %d more bytes\n", len(b)-maxHex)
	}
	return string(out)
}

// displayLines escapes each line of s for display and keeps the line
// breaks: a narration's paragraphs stay paragraphs, a CR or an ESC in a
// line shows as \r, \x1b.
func displayLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = safe.Display(l)
	}
	return strings.Join(lines, "\n")
}
