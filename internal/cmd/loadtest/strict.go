package main

// The providers of issue 40's pacer figures (unsteady.go, strictlimit.go,
// lowlimit.go, replicas.go): servers answering after 2 ms, a limiter with a
// small burst counted per replica over a window after the first seconds.

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// serverLatency is how long the servers of issue 40's figures take to answer.
const serverLatency = 2 * time.Millisecond

// slow answers as a does, after serverLatency.
func slow(a answer) answer {
	return func(w http.ResponseWriter) bool {
		time.Sleep(serverLatency)
		return a(w)
	}
}

// strictProvider admits a fixed rate (token bucket of burst) and answers
// refuse above it, after serverLatency. From settle after start on (and,
// when length is set, for length), it counts admitted and refused answers,
// per replica (the X-Replica header).
type strictProvider struct {
	*httptest.Server
	bucket *rate.Limiter
	settle time.Duration
	// length is the window's, or 0 for until the figure ends: a figure of
	// "seconds 2–6" counts no answer after its 6th second, when the load
	// stops sending and only the calls still waiting out a Retry-After
	// finish.
	length time.Duration

	mu       sync.Mutex
	start    time.Time
	admitted map[string]int
	refused  int
}

func newStrictProvider(limit float64, burst int, settle, length time.Duration, refuse answer) *strictProvider {
	p := &strictProvider{bucket: rate.NewLimiter(rate.Limit(limit), burst), settle: settle, length: length, admitted: map[string]int{}}
	p.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		time.Sleep(serverLatency)
		ok := p.bucket.Allow()
		p.mu.Lock()
		if since := time.Since(p.start); !p.start.IsZero() && since >= p.settle && (p.length == 0 || since < p.settle+p.length) {
			if ok {
				p.admitted[r.Header.Get("X-Replica")]++
			} else {
				p.refused++
			}
		}
		p.mu.Unlock()
		if ok {
			ok200(w)
		} else {
			refuse(w)
		}
	}))
	p.Config.ErrorLog = log.New(io.Discard, "", 0)
	p.Start()
	return p
}

// begin starts the clock of the window.
func (p *strictProvider) begin() {
	p.mu.Lock()
	p.start = time.Now()
	p.mu.Unlock()
}

// window returns the answers counted since settle after begin (for length,
// if set): admitted per replica, admitted in all, the share of 429s in
// percent, and the window's length.
func (p *strictProvider) window() (per map[string]int, admitted int, pct429 float64, el time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	per = map[string]int{}
	for k, v := range p.admitted {
		per[k] = v
		admitted += v
	}
	pct429 = 100 * float64(p.refused) / float64(max(admitted+p.refused, 1))
	el = time.Since(p.start) - p.settle
	if p.length > 0 {
		el = min(el, p.length)
	}
	return per, admitted, pct429, el
}
