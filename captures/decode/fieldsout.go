package decode

// -T fields: the values of chosen fields, one line per packet, as
// tshark -T fields prints them (-e, -E header/separator/occurrence/
// aggregator/quote); and -x, the hex dump under each packet.

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/appendtext"
	"github.com/rdmalab/rdmalab/captures/decode/fields"
	"github.com/rdmalab/rdmalab/captures/dfilter"
)

// FieldsOutput is what -T fields prints.
type FieldsOutput struct {
	Fields     []*fields.FieldDef
	Header     bool   // a first line with the field names
	Separator  string // between fields (tab)
	Occurrence byte   // 'a' all, 'f' first, 'l' last
	Aggregator string // between the occurrences of a field (",")
	Quote      byte   // 0, '"' or '\'' around each field

	vals []dfilter.Value
}

// NewFieldsOutput resolves the field names of -e and applies the -E
// options (header=y|n, separator=/t|/s|C, occurrence=f|l|a,
// aggregator=,|/s|C, quote=d|s|n).
func NewFieldsOutput(names, opts []string) (*FieldsOutput, error) {
	fo := &FieldsOutput{Separator: "\t", Occurrence: 'a', Aggregator: ","}
	if len(names) == 0 {
		return nil, fmt.Errorf("-T fields needs at least one -e FIELD")
	}
	for _, n := range names {
		d, ok := fields.Registry().Def(n)
		if !ok {
			if s := suggestField(n); s != "" {
				return nil, fmt.Errorf("-e %s: unknown field (did you mean %s?)", n, s)
			}
			return nil, fmt.Errorf("-e %s: unknown field (decode --fields lists them)", n)
		}
		fo.Fields = append(fo.Fields, d)
	}
	for _, o := range opts {
		k, v, ok := strings.Cut(o, "=")
		if !ok {
			return nil, fmt.Errorf("-E %s: want NAME=VALUE", o)
		}
		bad := func(want string) error { return fmt.Errorf("-E %s: want %s=%s", o, k, want) }
		switch k {
		case "header":
			if v != "y" && v != "n" {
				return nil, bad("y|n")
			}
			fo.Header = v == "y"
		case "separator", "aggregator":
			s, ok := sepChar(v)
			if !ok {
				return nil, bad("/t|/s|a character")
			}
			if k == "separator" {
				fo.Separator = s
			} else {
				fo.Aggregator = s
			}
		case "occurrence":
			if v != "f" && v != "l" && v != "a" {
				return nil, bad("f|l|a")
			}
			fo.Occurrence = v[0]
		case "quote":
			switch v {
			case "d":
				fo.Quote = '"'
			case "s":
				fo.Quote = '\''
			case "n":
				fo.Quote = 0
			default:
				return nil, bad("d|s|n")
			}
		default:
			return nil, fmt.Errorf("-E %s: unknown option (header, separator, occurrence, aggregator, quote)", o)
		}
	}
	return fo, nil
}

// sepChar is the separator or aggregator v names: /t, /s, or its first
// character, as tshark takes it.
func sepChar(v string) (string, bool) {
	switch v {
	case "/t":
		return "\t", true
	case "/s":
		return " ", true
	}
	r, n := utf8.DecodeRuneInString(v)
	return v[:n], n > 0 && r != utf8.RuneError
}

func suggestField(n string) string {
	f, err := dfilter.Compile(n, fields.Registry())
	if err == nil || f != nil {
		return ""
	}
	if e, ok := err.(*dfilter.Error); ok {
		if _, s, ok := strings.Cut(e.Msg, "did you mean "); ok {
			return strings.TrimSuffix(s, "?)")
		}
	}
	return ""
}

// appendHeader appends the header line.
func (fo *FieldsOutput) appendHeader(b []byte) []byte {
	for i, f := range fo.Fields {
		if i > 0 {
			b = append(b, fo.Separator...)
		}
		b = append(b, f.Name...)
	}
	return append(b, '\n')
}

// appendFields appends the line of p.
func (fo *FieldsOutput) appendFields(b []byte, p *analysis.Packet) []byte {
	for i, f := range fo.Fields {
		if i > 0 {
			b = append(b, fo.Separator...)
		}
		fo.vals = f.Values(p, fo.vals[:0])
		vs := fo.vals
		if len(vs) > 1 {
			switch fo.Occurrence {
			case 'f':
				vs = vs[:1]
			case 'l':
				vs = vs[len(vs)-1:]
			}
		}
		if len(vs) == 0 {
			continue // an absent field is nothing, quoted or not, as in tshark
		}
		if fo.Quote != 0 {
			b = append(b, fo.Quote)
		}
		for j, v := range vs {
			if j > 0 {
				b = append(b, fo.Aggregator...)
			}
			b = f.AppendValue(b, v)
		}
		if fo.Quote != 0 {
			b = append(b, fo.Quote)
		}
	}
	return append(b, '\n')
}

// appendHexDump appends the frame's bytes as tshark -x prints them, and a
// blank line.
func appendHexDump(b []byte, data []byte) []byte {
	for off := 0; off < len(data); off += 16 {
		row := data[off:min(off+16, len(data))]
		b = appendtext.HexFixed(b, uint64(off), 4)
		b = append(b, ' ', ' ')
		for i := 0; i < 16; i++ {
			if i < len(row) {
				b = appendtext.HexFixed(b, uint64(row[i]), 2)
				b = append(b, ' ')
			} else {
				b = append(b, ' ', ' ', ' ')
			}
		}
		b = append(b, ' ', ' ')
		for _, c := range row {
			if c < 0x20 || c >= 0x7f {
				c = '.'
			}
			b = append(b, c)
		}
		b = append(b, '\n')
	}
	return append(b, '\n')
}

// WriteFieldList writes `decode --fields`: every field of the registry,
// one a line, with its type, whether the name is Wireshark's or
// rdmalab's, and what it is.
func WriteFieldList(w io.Writer) error {
	all := fields.Registry().All()
	width := 0
	for _, f := range all {
		width = max(width, len(f.Name))
	}
	var b []byte
	b = append(b, "# Fields for -Y, -T fields -e and --json. Wireshark's keep tshark 4.0's names\n"+
		"# and values; rdmalab's may be written without \"rdmalab.\" (icrc_ok, msg.kind).\n"...)
	b = fmt.Appendf(b, "%-*s  %-16s  %-9s  %s\n", width, "FIELD", "TYPE", "ORIGIN", "DESCRIPTION")
	for i := range all {
		f := &all[i]
		t := f.Type.String()
		if f.Type == dfilter.TypeUint {
			t = fmt.Sprintf("uint%d", f.Bits)
			if f.Hex {
				t += " (hex)"
			}
		}
		b = fmt.Appendf(b, "%-*s  %-16s  %-9s  %s\n", width, f.Name, t, f.Origin(), f.Desc)
	}
	_, err := w.Write(b)
	return err
}

// readsText reports whether one of the fields is a text the analysis
// leaves out under analysis.Options.SkipText.
func (fo *FieldsOutput) readsText() bool {
	if fo == nil {
		return false
	}
	for _, f := range fo.Fields {
		if fields.TextField(f.Name) {
			return true
		}
	}
	return false
}
