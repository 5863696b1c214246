package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/captures/replay"
	"github.com/rdmalab/rdmalab/viz"
)

// pageGet fetches url with c and returns the body.
func pageGet(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// waitPage polls the page until re matches it.
func waitPage(t *testing.T, c *http.Client, url, re string) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	var body string
	for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(10 * time.Millisecond) {
		if _, body = pageGet(t, c, url); rx.MatchString(body) {
			return body
		}
	}
	t.Fatalf("the page never matched %q:\n%.3000s", re, body)
	return ""
}

// rdmalab replay --serve: each move of the view redraws the class page,
// with the step's narration and its packet selected, tree and bytes.
func TestReplayServeFollowsSteps(t *testing.T) {
	const pcap = "captures/testdata/nfs3-rdma.pcap"
	r, err := viz.OpenReplay(pcap, pcap, replay.ReadOptions{NoJSON: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	srv, err := serveReplay(r, pcap, "-")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") {
		t.Fatalf("--serve - is not loopback: %s", srv.URL())
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 5 * time.Second}
	if code, _ := pageGet(t, c, "http://"+srv.Addr().String()+"/"); code != http.StatusUnauthorized {
		t.Fatalf("without the token: %d, want 401", code)
	}
	body := waitPage(t, c, srv.URL(), `data-seq="\d+"`)
	if strings.Contains(body, `<h2>Packet `) {
		t.Fatalf("before the first step the page selects a packet:\n%.2000s", body)
	}
	home := "http://" + srv.Addr().String() + "/"
	src := r.Source()
	for k := 1; k <= 18; k++ {
		if err := src.Act(viz.ActNext); err != nil {
			t.Fatalf("n %d: %v", k, err)
		}
	}
	if err := src.Act(viz.ActStep); err != nil {
		t.Fatal(err)
	}
	// The view's own test (TestReplayTmux) is at frame 88 here: the READs posted.
	if f := src.Frame(); f != 88 {
		t.Fatalf("frame %d after 18 n and an s, want 88", f)
	}
	body = waitPage(t, c, home, `<h2>Packet 88</h2>`)
	for _, want := range []string{`<pre>frame 88: svc_rdma_process_read_list `, `<li class="sel">`, `class="tree"`, `<pre class="hex">0000  `, `WRs posted <b id="wrs">\d+</b>`} {
		if !regexp.MustCompile(want).MatchString(body) {
			t.Errorf("the page at frame 88 lacks %q:\n%.4000s", want, body)
		}
	}
	// b goes back: the page follows.
	if err := src.Act(viz.ActBack); err != nil {
		t.Fatal(err)
	}
	back := src.Frame()
	waitPage(t, c, home, `<h2>Packet `+strconv.Itoa(back)+`</h2>`)
}

// replay --serve is the view's: a transcript has no steps to publish.
func TestReplayServeNeedsTheView(t *testing.T) {
	var out, errb strings.Builder
	code := run([]string{"replay", "--text", "--serve", "-", "captures/testdata/nfs3-rdma.pcap"}, strings.NewReader(""), &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "--serve follows the view") {
		t.Fatalf("exit %d, stderr %q; want 2 and a usage error", code, errb.String())
	}
}

// rdmalab replay --serve on a terminal: the URL is printed, the view's
// status line keeps it, a key in the view moves the page, and q ends the
// page and says so.
func TestReplayServeTmux(t *testing.T) {
	needTmux(t)
	ts := startTmuxArgs(t, 200, 50, "replay", "--serve", "-", "captures/testdata/nfs3-rdma.pcap")
	scr := ts.waitFor(`class page http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32}`)
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32}`).FindString(scr)
	home := url[:strings.Index(url, "?")]
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 5 * time.Second}
	waitPage(t, c, url, `replay frame 0/752`)
	ts.keys("s")
	ts.waitFor(`replay frame 1/752`)
	waitPage(t, c, home, `<h2>Packet 1</h2>`)
	ts.keys("q")
	scr = ts.waitFor(`EXITED \d+`)
	if !strings.Contains(scr, "EXITED 0") || !strings.Contains(scr, "stopped serving "+url) {
		t.Errorf("after q: want exit 0 and the URL said again:\n%s", scr)
	}
}
