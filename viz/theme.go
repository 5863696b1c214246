package viz

import "github.com/gdamore/tcell/v2"

// Theme is the view's named styles. Build one with NewTheme; a Theme for 0
// colours (NO_COLOR, or a terminal without colour) uses only bold,
// underline, dim and reverse, and every pane adds glyphs so nothing is
// told by colour alone.
type Theme struct {
	Mono bool

	Base      tcell.Style // plain text
	Dim       tcell.Style // secondary text: units, explanations
	Bar       tcell.Style // the title and status bars
	BarKey    tcell.Style // a key or the current layout in a bar
	Header    tcell.Style // a pane's title row
	HeaderSel tcell.Style // the selected pane's title row
	Column    tcell.Style // column headings
	Sep       tcell.Style // lines between panes
	Alarm     tcell.Style // errors, starvation, a premature acknowledgement
	Good      tcell.Style // success, a delivered reply
	Signaled  tcell.Style // the WR that carries the cqe
	Send      tcell.Style // the Send that ends a reply chain
	Cursor    tcell.Style // rc_curpage / rc_pageoff
	ChainLink tcell.Style // where a scatterlist is chained to the next table
	Acked     tcell.Style // xpt_acked_pos
	PostSeq   tcell.Style // sc_post_seq
	GaugeUsed tcell.Style // SQ entries in flight
	GaugeFree tcell.Style // SQ entries available
	Help      tcell.Style // the help overlay

	// Events by kind.
	EvCall, EvReturn, EvPoint, EvWait, EvFault, EvNote tcell.Style

	palette []tcell.Color // read chunk segments; nil when Mono
	inline  tcell.Color
	call    tcell.Color
	write   tcell.Color
	reply   tcell.Color
	other   tcell.Color
}

// NewTheme returns the styles for a screen with the given number of
// colours (tcell's Screen.Colors; 0 under NO_COLOR).
func NewTheme(colors int) Theme {
	b := tcell.StyleDefault
	if colors < 8 {
		return Theme{
			Mono: true, Base: b, Dim: b.Dim(true), Bar: b.Reverse(true), BarKey: b.Reverse(true).Bold(true).Underline(true),
			Header: b.Bold(true).Underline(true), HeaderSel: b.Reverse(true).Bold(true), Column: b.Underline(true),
			Sep: b.Dim(true), Alarm: b.Bold(true).Reverse(true), Good: b.Bold(true), Signaled: b.Bold(true),
			Send: b.Bold(true).Underline(true), Cursor: b.Bold(true), ChainLink: b.Bold(true).Dim(true),
			Acked: b.Bold(true).Reverse(true), PostSeq: b.Bold(true).Underline(true),
			GaugeUsed: b.Reverse(true), GaugeFree: b.Dim(true), Help: b.Reverse(true),
			EvCall: b, EvReturn: b.Dim(true), EvPoint: b, EvWait: b.Italic(true), EvFault: b.Bold(true).Reverse(true), EvNote: b.Dim(true),
		}
	}
	fg := func(c tcell.Color) tcell.Style { return b.Foreground(c) }
	return Theme{
		Base: b, Dim: fg(tcell.ColorGray), Bar: b.Background(tcell.ColorNavy).Foreground(tcell.ColorWhite),
		BarKey:    b.Background(tcell.ColorNavy).Foreground(tcell.ColorYellow).Bold(true),
		Header:    b.Background(tcell.ColorGray).Foreground(tcell.ColorBlack),
		HeaderSel: b.Background(tcell.ColorTeal).Foreground(tcell.ColorWhite).Bold(true),
		Column:    fg(tcell.ColorSilver).Underline(true), Sep: fg(tcell.ColorGray),
		Alarm: fg(tcell.ColorRed).Bold(true), Good: fg(tcell.ColorGreen),
		Signaled: fg(tcell.ColorYellow).Bold(true), Send: fg(tcell.ColorAqua).Bold(true),
		Cursor: fg(tcell.ColorRed).Bold(true), ChainLink: fg(tcell.ColorFuchsia).Bold(true),
		Acked:     b.Background(tcell.ColorGreen).Foreground(tcell.ColorBlack).Bold(true),
		PostSeq:   b.Background(tcell.ColorYellow).Foreground(tcell.ColorBlack).Bold(true),
		GaugeUsed: fg(tcell.ColorOrange), GaugeFree: fg(tcell.ColorGreen),
		Help:   b.Background(tcell.ColorNavy).Foreground(tcell.ColorWhite),
		EvCall: fg(tcell.ColorAqua), EvReturn: fg(tcell.ColorTeal), EvPoint: b, EvWait: fg(tcell.ColorOlive),
		EvFault: fg(tcell.ColorRed).Bold(true).Reverse(true), EvNote: fg(tcell.ColorSilver),
		palette: []tcell.Color{tcell.ColorYellow, tcell.ColorFuchsia, tcell.ColorLime, tcell.ColorOrange, tcell.ColorSkyblue, tcell.ColorPink},
		inline:  tcell.ColorAqua, call: tcell.ColorOlive, write: tcell.ColorBlue, reply: tcell.ColorGreen, other: tcell.ColorSilver,
	}
}

// bytes is the style of bytes from src: landed bytes are filled, bytes a
// posted Read has yet to bring are outlined; odd segments are underlined
// so neighbouring segments stay apart without colour.
func (th Theme) bytes(src byteSource, landed bool) tcell.Style {
	if src.kind == srcNone {
		return th.Dim
	}
	st := th.Base
	if th.Mono {
		st = st.Reverse(landed)
		if !landed {
			st = st.Dim(true)
		}
	} else {
		c := th.colorOf(src)
		if landed {
			st = st.Background(c).Foreground(tcell.ColorBlack)
		} else {
			st = st.Foreground(c)
		}
	}
	return st.Underline(src.seg%2 == 1)
}

func (th Theme) colorOf(src byteSource) tcell.Color {
	switch src.kind {
	case srcInline:
		return th.inline
	case srcRead:
		return th.palette[(src.chunk*3+src.seg)%len(th.palette)]
	case srcCall:
		return th.call
	case srcWrite:
		return th.write
	case srcReply:
		return th.reply
	}
	return th.other
}
