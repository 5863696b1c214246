package repl

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchPages is how many pages follow the session in the benchmarks.
const benchPages = 50

// benchSteps is how many steps a latency benchmark measures.
const benchSteps = 200

var seqRE = regexp.MustCompile(`data-seq="([0-9]+)"`)

// follower is one page's event stream read by a goroutine: it records
// when each frame arrived.
type follower struct {
	mu   sync.Mutex
	seq  uint64
	at   time.Time
	cond *sync.Cond
}

func follow(b *testing.B, url, token string, wg *sync.WaitGroup) *follower {
	req, _ := http.NewRequest("GET", url+"/events", nil)
	req.AddCookie(&http.Cookie{Name: "rdmalab_token", Value: token})
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("page: %v %v", err, resp)
	}
	f := &follower{}
	f.cond = sync.NewCond(&f.mu)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer resp.Body.Close()
		r := bufio.NewReaderSize(resp.Body, 1<<16)
		for {
			l, err := r.ReadSlice('\n')
			if err != nil && err != bufio.ErrBufferFull {
				return
			}
			if !bytes.HasPrefix(l, []byte("data: <div id=\"frame\"")) {
				continue
			}
			m := seqRE.FindSubmatch(l)
			if m == nil {
				continue
			}
			n, _ := strconv.ParseUint(string(m[1]), 10, 64)
			f.mu.Lock()
			f.seq, f.at = n, time.Now()
			f.cond.Broadcast()
			f.mu.Unlock()
		}
	}()
	return f
}

// waitPast waits until the page has a frame after seq and returns when it
// came.
func (f *follower) waitPast(seq uint64) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.seq <= seq {
		f.cond.Wait()
	}
	return f.at
}

// benchSession is a session with traffic to step through.
func benchSession(b *testing.B) *Session {
	s, err := NewSession(Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	var out bytes.Buffer
	if err := s.Exec("set auto_complete on", Pos{}, &out); err != nil {
		b.Fatal(err)
	}
	return s
}

// stepLine is the command each measured step runs: a small WRITE served
// to its end, so every step changes the picture.
func stepLine(i int) string {
	if i%2 == 0 {
		return "write 4k"
	}
	return "continue"
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// BenchmarkServeEnterToPage measures, over 200 steps with 50 pages
// following, the time from a command's start (Enter) to its frame on
// every page: p50 and p99 (the slowest page of each step).
func BenchmarkServeEnterToPage(b *testing.B) {
	for range b.N {
		s := benchSession(b)
		var out bytes.Buffer
		if err := s.Exec("serve", Pos{}, &out); err != nil {
			b.Fatal(err)
		}
		u := strings.SplitN(s.web.URL(), "/?", 2)[0]
		var wg sync.WaitGroup
		pages := make([]*follower, benchPages)
		for i := range pages {
			pages[i] = follow(b, u, s.web.Token(), &wg)
		}
		for s.web.Clients() < benchPages {
			time.Sleep(time.Millisecond)
		}
		lat := make([]time.Duration, 0, benchSteps)
		for i := range benchSteps {
			time.Sleep(2 * time.Millisecond) // the last frame has gone out
			seq := s.web.Seq()
			start := time.Now()
			out.Reset()
			if err := s.Exec(stepLine(i), Pos{}, &out); err != nil {
				b.Fatalf("%s: %v", stepLine(i), err)
			}
			var last time.Time
			for _, p := range pages {
				if at := p.waitPast(seq); at.After(last) {
					last = at
				}
			}
			lat = append(lat, last.Sub(start))
		}
		s.stopServing()
		wg.Wait()
		b.ReportMetric(float64(percentile(lat, 0.50).Microseconds()), "p50-µs")
		b.ReportMetric(float64(percentile(lat, 0.99).Microseconds()), "p99-µs")
	}
}

// BenchmarkServeCommandLatency is the REPL's own time for a command with
// no page following and with 50: the page must not slow the REPL.
func BenchmarkServeCommandLatency(b *testing.B) {
	for _, pages := range []int{0, benchPages} {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) {
			s := benchSession(b)
			var out bytes.Buffer
			var wg sync.WaitGroup
			if pages > 0 {
				if err := s.Exec("serve", Pos{}, &out); err != nil {
					b.Fatal(err)
				}
				u := strings.SplitN(s.web.URL(), "/?", 2)[0]
				for range pages {
					follow(b, u, s.web.Token(), &wg)
				}
				for s.web.Clients() < pages {
					time.Sleep(time.Millisecond)
				}
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				out.Reset()
				start := time.Now()
				if err := s.Exec(stepLine(i), Pos{}, &out); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			b.ReportMetric(float64(percentile(lat, 0.50).Microseconds()), "p50-µs")
			b.ReportMetric(float64(percentile(lat, 0.99).Microseconds()), "p99-µs")
			s.stopServing()
			wg.Wait()
		})
	}
}
