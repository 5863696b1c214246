package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Limits of a server on a network; Options overrides them.
const (
	DefaultAddr       = "127.0.0.1:0" // loopback, a free port
	defaultMaxClients = 64
	defaultMaxBytes   = 64 << 20 // a page's stream ends here; the page reconnects
	writeTimeout      = 5 * time.Second
	frameEvents       = pageEvents
	cookieName        = "rdmalab_token"
)

// CSP is the Content-Security-Policy of every answer: the page's own
// script and style only, nothing inline.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Options are a server's address and limits; zero values take defaults.
type Options struct {
	Addr       string // DefaultAddr when empty
	MaxClients int    // pages following at once; beyond, 503
	MaxBytes   int64  // bytes one page's stream carries before it is ended
	// WriteTimeout drops a page that takes no write for this long.
	WriteTimeout time.Duration
}

// Server serves one session's picture read-only to every page that holds
// its token.
type Server struct {
	token string
	opt   Options
	ln    net.Listener
	srv   *http.Server
	done  chan struct{}
	wg    sync.WaitGroup

	kick chan struct{} // a change to render; one pending is enough

	mu      sync.Mutex
	src     Source
	origin  string
	stop    func() // the source's Watch
	session string // changes with the source: pages never mix two
	seq     uint64 // frames rendered in this session
	cur     []byte // the newest rendered body
	ended   string // the session ended: why ("" while it runs)
	clients map[*client]struct{}
}

// client is one page's event stream: it holds the newest message it has
// not written yet, never more (a slow page skips frames).
type client struct {
	mu   sync.Mutex
	msg  []byte
	wake chan struct{}
	gone chan struct{}
	once sync.Once
}

func (c *client) put(msg []byte) {
	c.mu.Lock()
	c.msg = msg
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *client) take() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.msg
	c.msg = nil
	return m
}

func (c *client) drop() { c.once.Do(func() { close(c.gone) }) }

// Listen starts serving src (origin says what it is: "live session",
// "snapshot FILE") on o.Addr. Close stops it.
func Listen(src Source, origin string, o Options) (*Server, error) {
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	if o.MaxClients <= 0 {
		o.MaxClients = defaultMaxClients
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = defaultMaxBytes
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = writeTimeout
	}
	tok, err := randomHex(16)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	s := &Server{token: tok, opt: o, ln: ln, done: make(chan struct{}), kick: make(chan struct{}, 1), clients: map[*client]struct{}{}}
	s.srv = &http.Server{
		Handler:           s.guard(s.routes()),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          nil,
	}
	s.SetSource(src, origin)
	s.wg.Add(2)
	go func() { defer s.wg.Done(); s.renderLoop() }()
	go func() { defer s.wg.Done(); _ = s.srv.Serve(ln) }()
	return s, nil
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("serve: a random token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Addr is where the server listens.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Token is what every request must carry.
func (s *Server) Token() string { return s.token }

// URL is the address to hand out, with the token. An unspecified address
// (0.0.0.0, ::) is named by the host's name.
func (s *Server) URL() string {
	host, port, _ := net.SplitHostPort(s.ln.Addr().String())
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		}
	}
	return "http://" + net.JoinHostPort(host, port) + "/?token=" + s.token
}

// SetSource starts a new session on the page: every page says so and
// draws the new source from then on.
func (s *Server) SetSource(src Source, origin string) {
	id, err := randomHex(8)
	if err != nil {
		id = fmt.Sprint(time.Now().UnixNano())
	}
	s.mu.Lock()
	if s.stop != nil {
		s.stop()
	}
	s.src, s.origin, s.session, s.seq, s.cur, s.ended = src, origin, id, 0, nil, ""
	s.stop = src.Watch(s.changed)
	s.mu.Unlock()
	// Drawn by the render loop: a caller holding the lab (a command)
	// must not wait for its own lock.
	s.changed()
}

// End tells every page the session ended (why), keeping its last picture.
func (s *Server) End(why string) {
	s.mu.Lock()
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
	s.ended = why
	msg := sse("end", why)
	for c := range s.clients {
		c.put(msg)
	}
	s.mu.Unlock()
}

// Changed asks for the page to be drawn again: for what the source's
// Watch does not cover. It never blocks.
func (s *Server) Changed() { s.changed() }

// changed is the source's Watch callback: it never blocks.
func (s *Server) changed() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// renderLoop renders each change once, for every page.
func (s *Server) renderLoop() {
	for {
		select {
		case <-s.done:
			return
		case <-s.kick:
			s.render()
		}
	}
}

// render draws the source now and hands the frame to every page.
func (s *Server) render() {
	s.mu.Lock()
	src, origin, session := s.src, s.origin, s.session
	s.mu.Unlock()
	f := frameOf(src, frameEvents)
	s.mu.Lock()
	defer s.mu.Unlock()
	if session != s.session || s.ended != "" {
		return // a newer source is drawn by its own render
	}
	s.seq++
	var buf bytes.Buffer
	if err := renderBody(&buf, bodyOf(f, origin, session, s.seq)); err != nil {
		buf.Reset()
		fmt.Fprintf(&buf, "<p class=\"bad\">cannot draw this frame</p>")
	}
	s.cur = buf.Bytes()
	msg := frameMsg(session, s.cur)
	for c := range s.clients {
		c.put(msg)
	}
}

// Frame is what the page shows now, for `save --svg`.
func (s *Server) Frame() Frame {
	s.mu.Lock()
	src := s.src
	s.mu.Unlock()
	return frameOf(src, frameEvents)
}

// Close ends every page's stream and stops the server.
func (s *Server) Close() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	s.End("the session ended")
	close(s.done)
	s.mu.Lock()
	for c := range s.clients {
		c.drop()
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	s.wg.Wait()
	return err
}

// sse is one Server-Sent Event: each line of data its own data: field.
func sse(event, data string) []byte {
	var b bytes.Buffer
	b.WriteString("event: " + event + "\n")
	for _, l := range strings.Split(data, "\n") {
		b.WriteString("data: " + l + "\n")
	}
	b.WriteString("\n")
	return b.Bytes()
}

// frameMsg is a session's hello and its frame in one write: a page checks
// the session before it draws.
func frameMsg(session string, body []byte) []byte {
	return append(sse("session", session), sse("frame", string(body))...)
}

// routes are the page, its two assets, its event stream and its SVG.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", s.page)
	mux.HandleFunc("/app.js", asset("app.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("/app.css", asset("app.css", "text/css; charset=utf-8"))
	mux.HandleFunc("/events", s.events)
	mux.HandleFunc("/picture.svg", s.picture)
	mux.HandleFunc("/packet", s.browseFragment)
	mux.HandleFunc("/packets", s.browseFragment)
	return mux
}

// guard answers every request: GET (and HEAD) only, with the token (from
// ?token= once, then the cookie it sets), and the headers that keep the
// page to its own assets.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "read-only: only GET", http.StatusMethodNotAllowed)
			return
		}
		q := r.URL.Query().Get("token")
		if q != "" && s.valid(q) {
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			if r.URL.Path == "/" {
				// The token leaves the address bar (and history): the
				// cookie carries it from now on.
				http.Redirect(w, r, "/", http.StatusSeeOther)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if c, err := r.Cookie(cookieName); err == nil && s.valid(c.Value) {
			next.ServeHTTP(w, r)
			return
		}
		http.Error(w, "this page needs the token the trainer handed out: open the URL with ?token=", http.StatusUnauthorized)
	})
}

func (s *Server) valid(tok string) bool {
	return subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) == 1
}

// page is the whole page with the current picture: a page opened late
// shows the state at once, before its stream connects.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	cur := s.cur
	s.mu.Unlock()
	if cur == nil {
		s.render() // not drawn yet: the page waits for it, the lab does not
		s.mu.Lock()
		cur = s.cur
		s.mu.Unlock()
	}
	d := liveHTML(cur)
	var code int
	d.Browse, code = s.browseHTML(r)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(writeTimeout))
	_ = templates.ExecuteTemplate(w, "page", d)
}

// picture is the current picture as a standalone SVG.
func (s *Server) picture(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	if err := WriteSVG(&buf, s.Frame()); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Content-Disposition", `attachment; filename="rdmalab.svg"`)
	_, _ = w.Write(buf.Bytes())
}

// errFull is the answer beyond MaxClients.
var errFull = errors.New("too many pages follow this session; try again later")

func (s *Server) add() (*client, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.clients) >= s.opt.MaxClients {
		return nil, "", errFull
	}
	c := &client{wake: make(chan struct{}, 1), gone: make(chan struct{})}
	s.clients[c] = struct{}{}
	if s.cur != nil {
		c.msg = frameMsg(s.session, s.cur)
	}
	if s.ended != "" {
		c.msg = append(c.msg, sse("end", s.ended)...)
	}
	return c, s.session, nil
}

func (s *Server) remove(c *client) {
	s.mu.Lock()
	delete(s.clients, c)
	s.mu.Unlock()
}

// Seq is the number of the newest frame drawn in this session (a page's
// frame carries it as data-seq).
func (s *Server) Seq() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// Clients is how many pages follow now.
func (s *Server) Clients() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.clients)
}

// events streams the session's frames to one page: the current one at
// once, then each change. A page that does not take a write within
// writeTimeout is dropped; one that has been sent MaxBytes is ended (it
// reconnects and starts from the current frame).
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	c, _, err := s.add()
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer s.remove(c)
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	var sent int64
	write := func(b []byte) bool {
		if err := rc.SetWriteDeadline(time.Now().Add(s.opt.WriteTimeout)); err != nil {
			return false
		}
		n, err := w.Write(b)
		sent += int64(n)
		return err == nil && rc.Flush() == nil
	}
	if !write([]byte("retry: 1000\n\n")) {
		return
	}
	for {
		if m := c.take(); m != nil {
			if !write(m) || sent > s.opt.MaxBytes {
				return
			}
			continue
		}
		select {
		case <-c.wake:
		case <-c.gone:
			return
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
	}
}
