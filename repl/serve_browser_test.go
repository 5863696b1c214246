package repl

import (
	"context"
	"fmt"
	"net/url"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/rdmalab/rdmalab/engine/xprt"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/xdr"
	"github.com/rdmalab/rdmalab/viz/web"
)

// chromiumPath is Debian's chromium, which CI installs; without it the
// browser tests skip, unless RDMALAB_REQUIRE_TOOLS=1.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := osexec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("RDMALAB_REQUIRE_TOOLS") == "1" {
		t.Fatal("chromium is not installed, and RDMALAB_REQUIRE_TOOLS=1 requires it (apt-get install chromium)")
	}
	t.Skip("chromium is not installed: skipping the browser test of the class page (set RDMALAB_REQUIRE_TOOLS=1 to make this a failure)")
	return ""
}

// browser starts a headless chromium of its own (a fresh profile, nothing
// fetched from the network) and returns a tab's context.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1920, 1080),
	}
	ctx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(ctx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	// The browser lives as long as the first call's context: the limit
	// goes on the calls after it.
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelTime)
	return ctx
}

// pageText waits until the element sel's text satisfies ok (up to 2 s),
// and returns it.
func pageText(t *testing.T, ctx context.Context, sel string, ok func(string) bool) string {
	t.Helper()
	var got string
	deadline := time.Now().Add(2 * time.Second)
	for {
		tctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		var err error
		got, err = chromedp.Run(tctx, chromedp.Text(chromedp.CSS(sel)))
		cancel()
		if err == nil && ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s on the page: %q (err %v)", sel, got, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// textsInside checks that every text of the page's drawings ends inside
// its drawing: a phone scales a drawing down, and what runs past its
// width is cut off, not wrapped.
func textsInside(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	clipped, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("svg")).flatMap(s => {
		const w = s.viewBox.baseVal.width;
		return Array.from(s.querySelectorAll("text")).filter(t => { const b = t.getBBox(); return b.x < -1 || b.x + b.width > w + 1; }).map(t => t.textContent);
	})`))
	if err != nil {
		t.Fatal(err)
	}
	if len(clipped) > 0 {
		t.Errorf("%s: texts run past their drawing's edge: %q", name, clipped)
	}
}

// shoot sets the viewport, checks nothing overflows sideways and saves
// a screenshot (under RDMALAB_SCREENSHOTS when set, for the docs).
func shoot(t *testing.T, ctx context.Context, name string, w, h int64) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h), chromedp.Sleep(100*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	fits, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`))
	if err != nil {
		t.Fatal(err)
	}
	textsInside(t, ctx, name)
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if !fits {
		sw, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		iw, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.innerWidth`))
		t.Errorf("%s at %dx%d overflows sideways: scrollWidth %d > innerWidth %d", name, w, h, sw, iw)
	}
	dir := os.Getenv("RDMALAB_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%dx%d.png", name, w, h)), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The class page in a real browser follows a paced lesson the test
// steps: the narration, the WR count and the acked position it shows are
// the session's at every step; a page without the token is refused.
func TestServeInBrowser(t *testing.T) {
	ctx := browser(t)
	s, out := pacedSession(t, Options{})
	if got := input(t, s, out, "serve"); !strings.Contains(got, "?token=") {
		t.Fatalf("serve:\n%s", got)
	}
	u := s.web.URL()
	input(t, s, out, "learn first-write")
	if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
		t.Fatal(err)
	}
	pageText(t, ctx, "#lesson-step", func(s string) bool { return s == "1" })
	pageText(t, ctx, "#lesson-command", func(s string) bool { return s == "write 10000" })
	pageText(t, ctx, "#lesson-text", func(s string) bool { return strings.Contains(s, "registers the data") })
	shoot(t, ctx, "class-step1", 1920, 1080)
	shoot(t, ctx, "class-step1", 390, 844)
	chromedp.Do(ctx, chromedp.EmulateViewport(1920, 1080))
	sawWRs, sawAcked := false, false
	for step := 2; step <= 8; step++ {
		input(t, s, out, "")
		sn := s.shared.Snapshot()
		wrs := 0
		for _, c := range sn.Chains {
			wrs += len(c.WRs)
		}
		if step <= 7 {
			pageText(t, ctx, "#lesson-step", func(s string) bool { return s == strconv.Itoa(step) })
			want := s.lesson.tutor.Current().Command
			pageText(t, ctx, "#lesson-command", func(got string) bool { return got == want })
		} else {
			pageText(t, ctx, "#lesson-ended", func(s string) bool { return s == "lesson first-write finished: every check held" })
		}
		pageText(t, ctx, "#lesson-verdicts", func(s string) bool { return strings.Contains(s, "✓") && !strings.Contains(s, "✗") })
		pageText(t, ctx, "#wrs", func(s string) bool { return s == strconv.Itoa(wrs) })
		pageText(t, ctx, "#acked", func(s string) bool { return s == strconv.FormatUint(sn.Positions.AckedPos, 10) })
		sawWRs = sawWRs || wrs > 0
		sawAcked = sawAcked || sn.Positions.AckedPos > 0
		textsInside(t, ctx, fmt.Sprintf("step %d", step))
		if step == 4 {
			shoot(t, ctx, "class-step4", 1920, 1080)
			shoot(t, ctx, "class-step4", 390, 844)
			chromedp.Do(ctx, chromedp.EmulateViewport(1920, 1080))
		}
	}
	// Past the lesson, the learner's own commands: the replies go out and
	// their Sends complete, and the acked position advances on the page.
	for _, cmd := range []string{"continue", "complete all", "continue", "complete all", "continue", "complete all"} {
		input(t, s, out, cmd)
		sn := s.shared.Snapshot()
		pageText(t, ctx, "#acked", func(s string) bool { return s == strconv.FormatUint(sn.Positions.AckedPos, 10) })
		sawAcked = sawAcked || sn.Positions.AckedPos > 0
	}
	shoot(t, ctx, "class-end", 1920, 1080)
	if !sawWRs || !sawAcked {
		t.Errorf("the lesson never posted a WR (%v) or advanced the acked position (%v): the test proves little", sawWRs, sawAcked)
	}
	// The token came once in the address; the page dropped it from there.
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if strings.Contains(loc, "token") {
		t.Errorf("the token stays in the address bar: %s", loc)
	}
	// Without the token (no cookie, no ?token=) nothing is served.
	base, _ := url.Parse(u)
	base.RawQuery = ""
	if _, err := chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base.String())); err != nil {
		t.Fatal(err)
	}
	body, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, "needs the token") || strings.Contains(body, "step 7 of 7") {
		t.Errorf("a page without the token shows: %q", body)
	}
}

// hostileMarkup is a file name that would run script, inject markup and
// drive a terminal if any of it were taken raw.
const hostileMarkup = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>` + "\x1b[2J\r\n"

// saveHostileCapture makes the session answer a LOOKUP whose machine
// name and file name are hostileMarkup, and saves the capture as
// hostile.pcap in its folder.
func saveHostileCapture(t *testing.T, s *Session) {
	t.Helper()
	cred := oncrpc.AuthSysParams{MachineName: hostileMarkup}
	h := oncrpc.CallHeader{RPCVers: oncrpc.RPCVersion, Prog: nfs.ProgNFS, Vers: 3, Proc: uint32(nfs.Proc3Lookup),
		Cred: cred.Auth(), Verf: oncrpc.OpaqueAuth{Flavor: oncrpc.AuthNone}}
	w := xdr.NewWriter(h.AppendTo(nil))
	w.OpaqueVar([]byte{1, 2, 3, 4})
	w.String(hostileMarkup)
	if _, err := s.lab.Call(xprt.CallSpec{Label: hostileMarkup, Msg: w.Bytes()}); err != nil {
		t.Fatal(err)
	}
	exec(t, s, "continue")
	exec(t, s, "capture save hostile.pcap")
}

// The capture whose NFS file names carry markup and escape sequences
// renders as text in the browser: no element made, no script run.
func TestServeHostileCaptureInBrowser(t *testing.T) {
	ctx := browser(t)
	s, dir := trafficSession(t)
	saveHostileCapture(t, s)
	f, origin, err := CaptureFrame(filepath.Join(dir, "hostile.pcap"), 0)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.Listen(web.Static(f), origin, web.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL()), chromedp.WaitVisible(chromedp.CSS("#packets")), chromedp.Sleep(200*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#packets")))
	if err != nil {
		t.Fatal(err)
	}
	imgs, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("img").length`))
	scripts, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("script").length`))
	if title == "pwned" || imgs != 0 || scripts != 1 {
		t.Errorf("the hostile names made markup: title %q, %d img, %d script (want the page's own one)", title, imgs, scripts)
	}
	if !strings.Contains(text, `<script>document.title='pwned'</script>`) || !strings.Contains(text, `\x1b[2J\r\n`) {
		t.Errorf("the hostile name does not show as text in the packets:\n%.2000s", text)
	}
	shoot(t, ctx, "class-hostile", 390, 844)
}

// A student clicks a packet of the live list: the page shows its tree
// and bytes, which stay while the live part redraws, and fit a phone.
func TestServeBrowsePacketInBrowser(t *testing.T) {
	ctx := browser(t)
	s, _ := captureSession(t)
	exec(t, s, "serve")
	exec(t, s, "capture open nfs3-rdma.pcap")
	waitPage(t, s, func(p string) bool { return strings.Contains(p, `href="?packet=5"`) })
	if err := chromedp.Do(ctx, chromedp.Navigate(s.web.URL()), chromedp.WaitVisible(chromedp.CSS(`a[href="?packet=5"]`)),
		chromedp.Click(chromedp.CSS(`a[href="?packet=5"]`)), chromedp.WaitVisible(chromedp.CSS("#browse"))); err != nil {
		t.Fatal(err)
	}
	first := s.capture.index.Detail(4)[0].Text
	pageText(t, ctx, "#browse", func(s string) bool {
		return strings.Contains(s, "Packet 5 of nfs3-rdma.pcap") && strings.Contains(s, first)
	})
	seq := s.web.Seq()
	s.web.Changed()
	pageText(t, ctx, "#frame", func(string) bool { return s.web.Seq() > seq })
	pageText(t, ctx, "#browse", func(s string) bool { return strings.Contains(s, "Packet 5 of nfs3-rdma.pcap") })
	shoot(t, ctx, "class-packet", 390, 844)
}
