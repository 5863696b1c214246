package repl

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// student is a browser that opened the URL the trainer handed out: its
// cookie carries the token from then on.
func student(t *testing.T, s *Session) (*http.Client, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 5 * time.Second}
	if code, _ := getPage(t, c, s.web.URL()); code != http.StatusOK {
		t.Fatalf("GET the page: %d", code)
	}
	return c, "http://" + s.web.Addr().String()
}

func getPage(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A student picks any packet of the capture open in the session, by a
// GET: its tree and bytes are served, escaped; the list pages 200 at a
// time; a packet that is not there is a 404 saying why; the token is
// still required; and none of it changes the lab.
func TestServeBrowsePackets(t *testing.T) {
	s, _ := captureSession(t)
	exec(t, s, "serve")
	exec(t, s, "capture open nfs3-rdma.pcap")
	c, home := student(t, s)
	before := s.shared.Snapshot()

	// The live list links each packet to its tree and says there is more.
	p := waitPage(t, s, func(p string) bool { return strings.Contains(p, `id="packets"`) })
	for _, want := range []string{`<a href="?packet=1">`, `<a href="?packet=200">`, `<a href="?from=201">`} {
		if !strings.Contains(p, want) {
			t.Errorf("the live list lacks %q", want)
		}
	}

	x := s.capture.index
	const n = 300
	for _, url := range []string{home + "/packet?n=" + strconv.Itoa(n), home + "/?packet=" + strconv.Itoa(n)} {
		code, body := getPage(t, c, url)
		if code != http.StatusOK {
			t.Fatalf("%s: %d\n%s", url, code, body)
		}
		if !strings.Contains(body, "<h2>Packet 300 ") {
			t.Errorf("%s: no heading for packet 300:\n%.2000s", url, body)
		}
		for _, d := range x.Detail(n - 1)[:5] {
			if !strings.Contains(body, html.EscapeString(d.Text)) {
				t.Errorf("%s: the tree lacks %q", url, d.Text)
			}
		}
		b := x.Bytes(n - 1)
		row := "0000  "
		for _, v := range b[:16] {
			row += strconv.FormatUint(uint64(v)|0x100, 16)[1:] + " "
		}
		if !strings.Contains(body, row) {
			t.Errorf("%s: the hex lacks %q", url, row)
		}
	}

	code, body := getPage(t, c, home+"/?from=201")
	if code != http.StatusOK || !strings.Contains(body, "Packets 201 to 400") || !strings.Contains(body, `<a href="?packet=400">`) ||
		strings.Contains(body, `<a href="?packet=401">`) || !strings.Contains(body, `<a href="?from=1">`) || !strings.Contains(body, `<a href="?from=401">`) {
		t.Errorf("?from=201: %d, want packets 201 to 400 and the pages around:\n%.3000s", code, body)
	}
	code, body = getPage(t, c, home+"/packets?from=601")
	if code != http.StatusOK || !strings.Contains(body, "Packets 601 to 752") || strings.Contains(body, "?from=801") {
		t.Errorf("the last page: %d\n%.1000s", code, body)
	}

	for url, want := range map[string]string{
		home + "/packet?n=753":   "no packet 753: nfs3-rdma.pcap has 752 packets (1 to 752)",
		home + "/?packet=0":      `packet &#34;0&#34;: packets count from 1`,
		home + "/packet?n=-1":    `packet &#34;-1&#34;: packets count from 1`,
		home + "/packet?n=x":     `packet &#34;x&#34;: packets count from 1`,
		home + "/packet":         "which packet?",
		home + "/?from=99999999": "no packet 99999999",
	} {
		code, body := getPage(t, c, url)
		if code != http.StatusNotFound || !strings.Contains(body, want) {
			t.Errorf("%s: %d, want 404 saying %q:\n%.500s", url, code, want, body)
		}
	}

	bare := &http.Client{Timeout: 5 * time.Second}
	for _, url := range []string{home + "/packet?n=1", home + "/?packet=1", home + "/packets?from=1"} {
		if code, body := getPage(t, bare, url); code != http.StatusUnauthorized || strings.Contains(body, "Packet 1") {
			t.Errorf("%s without the token: %d, want 401", url, code)
		}
	}
	if after := s.shared.Snapshot(); !reflect.DeepEqual(after, before) {
		t.Error("browsing packets changed the lab")
	}

	exec(t, s, "capture close")
	waitPage(t, s, func(p string) bool { return !strings.Contains(p, `id="packets"`) })
	if code, body := getPage(t, c, home+"/packet?n=1"); code != http.StatusNotFound || !strings.Contains(body, "no capture is open") {
		t.Errorf("after capture close: %d\n%.500s", code, body)
	}
}

// A packet whose NFS file name carries markup and escape sequences is
// served as text.
func TestServeBrowseHostilePacket(t *testing.T) {
	s, _ := trafficSession(t)
	saveHostileCapture(t, s)
	exec(t, s, "capture open hostile.pcap")
	exec(t, s, "serve")
	c, home := student(t, s)
	frame := 0
	for i := range s.capture.index.Len() {
		if strings.Contains(s.capture.index.Summary(i), "LOOKUP Call") {
			frame = i + 1
			break
		}
	}
	if frame == 0 {
		t.Fatal("no LOOKUP in the capture")
	}
	code, body := getPage(t, c, home+"/packet?n="+strconv.Itoa(frame))
	if code != http.StatusOK || !strings.Contains(body, "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;") || !strings.Contains(body, `\x1b[2J\r\n`) {
		t.Errorf("the hostile name is not shown as escaped text: %d\n%.3000s", code, body)
	}
	if strings.Contains(body, "<script") || strings.Contains(body, "<img") || strings.Contains(body, "\x1b") {
		t.Errorf("the hostile name made markup or a raw escape:\n%.3000s", body)
	}
}
