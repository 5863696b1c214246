package web

import (
	"strings"
	"testing"
)

// A narration's file line breaks go, its paragraphs, list items, code
// spans and indented lines stay, and markup in it stays text.
func TestProse(t *testing.T) {
	in := "The cursor has moved\n3333 bytes into `rq_pages[0]`, which is\nnow in use.\n\n- `rc_curpage` — which entry;\n- `rc_pageoff` — the offset\n  inside that page;\n\n    show pages\n\nan odd ` backtick <b>x</b>"
	var b strings.Builder
	if err := templates.ExecuteTemplate(&b, "prose", prose(in)); err != nil {
		t.Fatal(err)
	}
	want := `<p>The cursor has moved 3333 bytes into <code>rq_pages[0]</code>, which is now in use.</p>` +
		`<p class="item">- <code>rc_curpage</code> — which entry;</p>` +
		`<p class="item">- <code>rc_pageoff</code> — the offset inside that page;</p>` +
		`<pre>    show pages</pre>` +
		`<p>an odd ` + "`" + ` backtick &lt;b&gt;x&lt;/b&gt;</p>`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
