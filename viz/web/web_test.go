package web

import (
	"bufio"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/internal/watch"
)

// hostile is markup, a terminal escape and a forged line, as a capture's
// file name or a trainer's lesson may carry.
const hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>\x1b[2J\r\n"

// liveSource is a Source a test changes.
type liveSource struct {
	mu sync.Mutex
	f  Frame
	w  watch.Set
}

func (l *liveSource) Snapshot() snap.Snapshot { l.mu.Lock(); defer l.mu.Unlock(); return l.f.Snapshot }
func (l *liveSource) Narration() string       { l.mu.Lock(); defer l.mu.Unlock(); return l.f.Narration }
func (l *liveSource) Events(n int) []trace.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Events[len(l.f.Events)-min(n, len(l.f.Events)):]
}
func (l *liveSource) Watch(f func()) func() { return l.w.Add(f) }

func (l *liveSource) set(f func(*Frame)) {
	l.mu.Lock()
	f(&l.f)
	l.mu.Unlock()
	l.w.Notify()
}

// sampleFrame has a page, a chain, a waiter, replies and an event, with
// hostile strings wherever a capture or a lesson puts text.
func sampleFrame(name string) Frame {
	s := snap.Snapshot{Clock: "1.5µs", Behaviour: name}
	s.Threads = []snap.Thread{{Name: "nfsd1", State: "running", Pages: []snap.Page{{Index: 1, Name: name, Extents: []snap.Extent{{Off: 0, Len: 100, Source: "inline"}, {Off: 100, Len: 900, Source: "read chunk " + name}}}}}}
	s.RWCtxts = snap.RWCtxts{InUse: []snap.RWCtxt{{ID: 1, Type: "READ", NEnts: 2, FirstSGLNents: 1, Chained: true, Where: name, SGL: []snap.SGE{{Page: name, Len: 4096, Source: "read chunk 1 seg 0"}, {Page: "pg2", Len: 10, Source: "reply"}}}}, Cached: []int{3, 4}, Created: 4}
	s.Chains = []snap.Chain{{Owner: "rw ctxt", Task: name, SQECount: 2, Pos: 7, WRs: []snap.WR{{Opcode: "RDMA_READ", Bytes: 4096, Signaled: false}, {Opcode: "SEND", Bytes: 100, Signaled: true, CQE: name}}}}
	s.SQ = snap.SQ{Depth: 8, Avail: 6, Waiters: []string{name}}
	s.Recent = &snap.Recent{SQNeed: map[string]int{name: 3}}
	s.CQ = []snap.Completion{{Seq: 1, Side: "server", Queue: "SQ", Opcode: name, Status: "IB_WC_SUCCESS", Bytes: 100}}
	s.Positions = snap.Positions{Enabled: true, PostSeq: 9, AckedPos: 4242, Replies: []snap.Reply{{XID: name, Proc: "READ", Pos: 4242, Acked: true}, {XID: "0x2", Pos: 5000, Inflight: true}}}
	s.Calls = []snap.Call{{XID: "0x1", Label: name, Proc: "LOOKUP", State: "answered"}}
	pk := &Packets{Name: name, Total: 2, First: 1, List: []string{"1 LOOKUP " + name, "2 reply"}, Selected: 1, Detail: []DetailLine{{0, "NFS"}, {1, "name: " + name}}, Bytes: []byte(name)}
	ls := &snap.Lesson{Title: name, Step: 2, Steps: 5, Command: name, Narration: "step text\n" + name,
		Last: &snap.StepResult{Command: name, Verdicts: []snap.Verdict{{OK: true, Say: "held " + name}, {OK: false, Say: "did not hold " + name}}}}
	return Frame{Lesson: ls, Packets: pk, Snapshot: s, Narration: "step 2 of 5\n" + name, Events: []trace.Event{{Seq: 1, Task: "nfsd1", Kind: trace.Call, Func: "svc_rdma_recvfrom", Args: trace.Fmt("name", name)}}}
}

func start(t *testing.T, src Source, o Options) *Server {
	t.Helper()
	s, err := Listen(src, "test", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// client is an HTTP client that keeps the token's cookie.
func jarClient(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 5 * time.Second}
}

func get(t *testing.T, c *http.Client, url string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestTokenRequired(t *testing.T) {
	s := start(t, Static(sampleFrame("x")), Options{})
	base := "http://" + s.Addr().String()
	for _, path := range []string{"/", "/events", "/app.js", "/app.css", "/picture.svg", "/?token=" + strings.Repeat("0", 32), "/?token=" + s.Token()[:31]} {
		resp, _ := get(t, http.DefaultClient, base+path)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", path, resp.StatusCode)
		}
	}
	c := jarClient(t)
	resp, body := get(t, c, s.URL())
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="acked">4242<`) {
		t.Fatalf("GET the URL: %d, acked position not shown:\n%s", resp.StatusCode, body)
	}
	if resp.Request.URL.RawQuery != "" {
		t.Errorf("the token stays in the address bar: %s", resp.Request.URL)
	}
	// The cookie now carries the token, for the assets and the stream.
	for _, path := range []string{"/app.js", "/app.css", "/picture.svg"} {
		if resp, _ := get(t, c, base+path); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s with the cookie: %d", path, resp.StatusCode)
		}
	}
	var ck *http.Cookie
	for _, x := range resp.Request.Response.Cookies() {
		ck = x
	}
	if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode {
		t.Errorf("token cookie %+v: want HttpOnly, SameSite=Strict", ck)
	}
	if resp, _ := get(t, c, base+"/etc/passwd"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a path outside the page's own: %d, want 404", resp.StatusCode)
	}
}

func TestReadOnlyAndHeaders(t *testing.T) {
	s := start(t, Static(sampleFrame("x")), Options{})
	h := s.srv.Handler
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(m, "/?token="+s.Token(), strings.NewReader("step")))
		if rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 405", m, rec.Code)
		}
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/", nil)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: s.Token()})
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("GET / with the cookie: %d", rec.Code)
	}
	if got := rec.Header().Get("Content-Security-Policy"); !strings.Contains(got, "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'") {
		t.Errorf("CSP = %q", got)
	}
	if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Error("no nosniff")
	}
	page := rec.Body.String()
	// Nothing inline: the policy would block it, and none is needed.
	for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(page, -1) {
		if !strings.Contains(tag, ` src="app.js"`) {
			t.Errorf("an inline script: %s", tag)
		}
	}
	for _, re := range []string{`<script[^>]*>[^<]`, `\sstyle=`, `<style`, `\son[a-z]+=`} {
		if regexp.MustCompile(re).MatchString(page) {
			t.Errorf("the page has inline script or style (%s)", re)
		}
	}
}

func TestHostileStringsInert(t *testing.T) {
	s := start(t, Static(sampleFrame(hostile)), Options{})
	c := jarClient(t)
	_, page := get(t, c, s.URL())
	_, svg := get(t, c, "http://"+s.Addr().String()+"/picture.svg")
	for what, out := range map[string]string{"page": page, "svg": svg} {
		for _, bad := range []string{"<script>", "<img", "\x1b", "\r"} {
			if strings.Contains(out, bad) {
				t.Errorf("the %s carries %q raw", what, bad)
			}
		}
		if !strings.Contains(out, `&lt;script&gt;alert(1)&lt;/script&gt;`) || !strings.Contains(out, `\x1b[2J\r\n`) {
			t.Errorf("the %s does not show the hostile name as text", what)
		}
	}
	// The standalone SVG is well-formed XML.
	if !strings.HasPrefix(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ") {
		t.Errorf("picture.svg starts %.60q", svg)
	}
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("picture.svg: %v", err)
		}
	}
}

// stream reads one page's event stream.
type stream struct {
	r    *bufio.Reader
	body io.Closer
}

func openStream(t *testing.T, s *Server) (*stream, int) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+s.Addr().String()+"/events", nil)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: s.Token()})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		resp.Body.Close()
		return nil, resp.StatusCode
	}
	st := &stream{bufio.NewReader(resp.Body), resp.Body}
	t.Cleanup(func() { st.body.Close() })
	return st, 200
}

// next is the next event's name and data.
func (st *stream) next(t *testing.T) (string, string) {
	t.Helper()
	var ev string
	var data []string
	for {
		l, err := st.r.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended: %v", err)
		}
		l = strings.TrimSuffix(l, "\n")
		switch {
		case l == "" && ev != "":
			return ev, strings.Join(data, "\n")
		case strings.HasPrefix(l, "event: "):
			ev = l[len("event: "):]
		case strings.HasPrefix(l, "data: "):
			data = append(data, l[len("data: "):])
		}
	}
}

// frame skips to the next frame, returning its session too.
func (st *stream) frame(t *testing.T) (session, body string) {
	t.Helper()
	for {
		ev, data := st.next(t)
		switch ev {
		case "session":
			session = data
		case "frame":
			return session, data
		}
	}
}

func TestLiveAndLate(t *testing.T) {
	src := &liveSource{f: sampleFrame("x")}
	s := start(t, src, Options{})
	src.set(func(f *Frame) { f.Snapshot.Positions.AckedPos = 5000 })
	time.Sleep(50 * time.Millisecond)
	// A page opened late gets the current state at once.
	st, _ := openStream(t, s)
	sess, body := st.frame(t)
	if !strings.Contains(body, `id="acked">5000<`) {
		t.Fatalf("late page: the current state is not its first frame:\n%s", body)
	}
	for i := 1; i <= 20; i++ {
		start := time.Now()
		src.set(func(f *Frame) { f.Snapshot.Positions.AckedPos = uint64(6000 + i) })
		sess2, body := st.frame(t)
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("step %d reached the page in %v, over 100 ms", i, d)
		}
		if sess2 != sess {
			t.Errorf("the session changed without a new source")
		}
		if !strings.Contains(body, "id=\"acked\">"+strconv.Itoa(6000+i)+"<") {
			t.Fatalf("step %d: frame does not show it", i)
		}
	}
	// A new session is announced under a new id, then the end.
	s.SetSource(Static(sampleFrame("second")), "second")
	sess3, body := st.frame(t)
	if sess3 == sess || !strings.Contains(body, "second") {
		t.Errorf("a new session: id %q (old %q)", sess3, sess)
	}
	s.End("the trainer left")
	for {
		ev, data := st.next(t)
		if ev == "end" {
			if data != "the trainer left" {
				t.Errorf("end says %q", data)
			}
			break
		}
	}
}

func TestClientsBounded(t *testing.T) {
	s := start(t, Static(sampleFrame("x")), Options{MaxClients: 2})
	for i := 0; i < 2; i++ {
		if _, code := openStream(t, s); code != 200 {
			t.Fatalf("page %d: %d", i, code)
		}
	}
	if _, code := openStream(t, s); code != http.StatusServiceUnavailable {
		t.Errorf("a third page: %d, want 503", code)
	}
}

// A page that stops reading is dropped, and the source's changes never
// wait for it.
func TestSlowClientDropped(t *testing.T) {
	src := &liveSource{f: sampleFrame("x")}
	s := start(t, src, Options{WriteTimeout: 200 * time.Millisecond})
	st, _ := openStream(t, s) // never read
	_ = st
	big := strings.Repeat("narration that fills the socket ", 1<<14)
	deadline := time.Now().Add(10 * time.Second)
	var worst time.Duration
	for s.Clients() > 0 && time.Now().Before(deadline) {
		start := time.Now()
		src.set(func(f *Frame) { f.Narration = big + time.Now().String() })
		worst = max(worst, time.Since(start))
		time.Sleep(5 * time.Millisecond)
	}
	if s.Clients() != 0 {
		t.Fatal("the page that does not read is still served")
	}
	// Waiting for the page would take the write timeout (200 ms); a
	// loaded machine's scheduling takes tens of ms, not that.
	if worst > 100*time.Millisecond {
		t.Errorf("a change took %v with a slow page: the publisher waited for it", worst)
	}
}

// A lesson draws from its state: the step of the steps, the command, the
// text and each check's verdict; at the end, the closing summary.
func TestLessonDrawn(t *testing.T) {
	f := sampleFrame("write 10000")
	var b strings.Builder
	if err := renderBody(&b, bodyOf(f, "test", "s", 1)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="lesson-step">2</b> of 5`, `<code id="lesson-command">write 10000</code>`, `<p>step text write 10000</p>`, `<li class="ok">✓ held write 10000</li>`, `<li class="bad">✗ did not hold write 10000</li>`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the lesson lacks %q", want)
		}
	}
	if strings.Contains(b.String(), `id="narration"`) {
		t.Error("the narration's text is drawn beside the lesson's state")
	}
	f.Lesson.Ended, f.Lesson.Outro = "lesson x finished: every check held", "That was it."
	b.Reset()
	renderBody(&b, bodyOf(f, "test", "s", 1))
	if !strings.Contains(b.String(), `id="lesson-ended">lesson x finished: every check held<`) || !strings.Contains(b.String(), "That was it.") || strings.Contains(b.String(), "lesson-command") {
		t.Errorf("the closing summary:\n%s", b.String())
	}
}

// A page's stream ends once it carried MaxBytes; the page reconnects and
// starts again from the current frame.
func TestBytesPerPageBounded(t *testing.T) {
	src := &liveSource{f: sampleFrame("x")}
	s := start(t, src, Options{MaxBytes: 1})
	st, _ := openStream(t, s)
	st.frame(t)
	src.set(func(f *Frame) { f.Snapshot.Positions.AckedPos = 1 })
	if _, err := io.ReadAll(st.r); err != nil {
		t.Fatalf("the stream over its bytes: %v", err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for s.Clients() != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if s.Clients() != 0 {
		t.Error("the page is still served past its bytes")
	}
}
