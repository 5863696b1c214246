package repl

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"
)

// fetchPage is the class page as a student's browser first gets it.
func fetchPage(t *testing.T, s *Session) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 5 * time.Second}
	resp, err := c.Get(s.web.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET the page: %d", resp.StatusCode)
	}
	return string(b)
}

// waitPage waits until the page satisfies ok: the page is drawn on the
// server's goroutine, after the command.
func waitPage(t *testing.T, s *Session, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		p := fetchPage(t, s)
		if ok(p) || time.Now().After(deadline) {
			return p
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A capture open in the session is listed on the class page, and goes
// when it is closed; the session ending stops the page.
func TestServeLivePackets(t *testing.T) {
	s, _ := trafficSession(t)
	exec(t, s, "serve")
	if p := fetchPage(t, s); strings.Contains(p, `id="packets"`) {
		t.Fatal("packets listed before a capture is open")
	}
	exec(t, s, "capture save lab.pcap")
	exec(t, s, "capture open lab.pcap")
	p := waitPage(t, s, func(p string) bool { return strings.Contains(p, `id="packets"`) })
	if !strings.Contains(p, "Packets of lab.pcap") || !strings.Contains(p, "RDMA_MSG") {
		t.Errorf("the open capture is not listed:\n%.3000s", p)
	}
	exec(t, s, "capture close")
	if p := waitPage(t, s, func(p string) bool { return !strings.Contains(p, `id="packets"`) }); strings.Contains(p, `id="packets"`) {
		t.Error("packets still listed after capture close")
	}
	w := s.web
	s.Close()
	if _, err := http.Get(w.URL()); err == nil {
		t.Error("the page is still served after the session closed")
	}
}
