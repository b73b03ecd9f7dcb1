package main

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// provider is the loopback platform in front of the access provider: it
// admits rate requests per second for the whole fleet (a token bucket with
// bursts of burst) and answers 429 with Retry-After: 1 above that. It keeps
// the time and outcome of every attempt.
type provider struct {
	*httptest.Server
	mu       sync.Mutex
	rate     float64
	burst    float64
	tokens   float64
	last     time.Time
	attempts []attempt
}

// attempt is one request the provider answered.
type attempt struct {
	at        time.Time
	throttled bool
}

func newProvider(rate, burst int) *provider {
	p := &provider{rate: float64(rate), burst: float64(burst)}
	p.Server = httptest.NewUnstartedServer(http.HandlerFunc(p.serve))
	p.Config.ErrorLog = log.New(io.Discard, "", 0)
	p.Start()
	return p
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	if !p.admit() {
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"type":"about:blank","title":"Too Many Requests","status":429,"serviceCode":"00000429","detail":"The configured access provider rate limited the request"}`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"id":"user_1","email":"ada@example.com","firstName":"Ada"}`)
}

// admit takes a token from the bucket, and records the attempt.
func (p *provider) admit() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.last.IsZero() {
		p.tokens = p.burst
	} else {
		p.tokens = min(p.burst, p.tokens+now.Sub(p.last).Seconds()*p.rate)
	}
	p.last = now
	ok := p.tokens >= 1
	if ok {
		p.tokens--
	}
	p.attempts = append(p.attempts, attempt{at: now, throttled: !ok})
	return ok
}

// count returns the attempts, and how many were throttled, in [from, to).
func (p *provider) count(from, to time.Time) (attempts, throttled int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range p.attempts {
		if a.at.Before(from) || !a.at.Before(to) {
			continue
		}
		attempts++
		if a.throttled {
			throttled++
		}
	}
	return attempts, throttled
}
