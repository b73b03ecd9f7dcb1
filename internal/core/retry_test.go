package core

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	stderrors "errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// rtSeedWaits are the waits DefaultRetryPolicy chooses for retries 0..7
// with Rand = rand.New(rand.NewPCG(1, 2)).Float64, computed independently
// of Backoff: floor(r_n · min(8s, 250ms·2ⁿ)) for the PCG's r_n
// (0.6764556596678251, 0.4613862177205994, 0.5085473976760264, ...).
var rtSeedWaits = []time.Duration{
	169113914, // 0.676… × 250ms
	230693108, // 0.461… × 500ms
	508547397, // 0.508… × 1s
	859585487, // 0.429… × 2s
	3191209397,
	3106931884, // 0.388… × 8s (capped from 8s)
	6554200211,
	2705453561,
}

func TestDefaultRetryPolicy(t *testing.T) {
	p := DefaultRetryPolicy()
	want := RetryPolicy{MaxRetries: 3, BaseDelay: 250 * time.Millisecond, MaxDelay: 8 * time.Second, MaxRetryAfter: 20 * time.Second}
	if p.MaxRetries != want.MaxRetries || p.BaseDelay != want.BaseDelay || p.MaxDelay != want.MaxDelay || p.MaxRetryAfter != want.MaxRetryAfter {
		t.Fatalf("DefaultRetryPolicy() = %+v, want %+v", p, want)
	}
	if s := DefaultSettings(); s.Retry.MaxRetries != 3 || s.Retry.BaseDelay != p.BaseDelay {
		t.Fatalf("DefaultSettings().Retry = %+v, want the default policy", s.Retry)
	}
}

func TestBackoffSeededSequence(t *testing.T) {
	p := DefaultRetryPolicy()
	p.Rand = rand.New(rand.NewPCG(1, 2)).Float64
	for n, want := range rtSeedWaits {
		if got := p.Backoff(n); got != want {
			t.Errorf("Backoff(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestBackoffBoundsAndCap(t *testing.T) {
	p := DefaultRetryPolicy()
	p.Rand = func() float64 { return 0.999999 }
	for n, ceil := range []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second} {
		got := p.Backoff(n)
		if got >= ceil || got < ceil*99/100 {
			t.Errorf("Backoff(%d) with r≈1 = %v, want just under %v", n, got, ceil)
		}
	}
	if got := p.Backoff(5000); got >= 8*time.Second || got <= 0 {
		t.Errorf("Backoff(5000) = %v, want capped below 8s (no overflow)", got)
	}
	p.Rand = func() float64 { return 0 }
	if got := p.Backoff(2); got != 0 {
		t.Errorf("Backoff with r=0 = %v, want 0 (full jitter starts at 0)", got)
	}
	// Without an injected source the default one is used and stays in range.
	p.Rand = nil
	for range 100 {
		if got := p.Backoff(1); got < 0 || got >= 500*time.Millisecond {
			t.Fatalf("Backoff(1) = %v, want in [0, 500ms)", got)
		}
	}
}

// rtResp builds the decoded error response with status and alternating
// header key/values, as the attempts stage hands it to the policy.
func rtResp(status int, kv ...string) *apierrors.Error {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return apierrors.Decode(status, h, nil)
}

// rtRateLimitedProblem is the contract's rate-limited problem, at 503.
func rtRateLimitedProblem() *apierrors.Error {
	h := http.Header{"Content-Type": {"application/problem+json"}}
	return apierrors.Decode(http.StatusServiceUnavailable, h, []byte(`{"title":"Rate limited","status":503,"detail":"The configured access provider rate limited the request"}`))
}

func TestDecideConformance(t *testing.T) {
	now := time.Date(2100, 1, 2, 3, 4, 5, 0, time.UTC)
	dialErr := &url.Error{Op: "Put", URL: "http://x", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
	type tc struct {
		name       string
		attempt    int
		nonIdem    bool
		resp       *apierrors.Error
		err        error
		maxRetries int           // 0: default 3
		base       time.Duration // 0: default
		deadline   time.Duration // 0: none, else now+deadline
		cancelled  bool
		wantD      Decision
		wantWait   time.Duration
	}
	cases := []tc{
		{name: "503 attempt 1", attempt: 1, resp: rtResp(503), wantD: Retry, wantWait: 125 * time.Millisecond},
		{name: "503 attempt 2", attempt: 2, resp: rtResp(503), wantD: Retry, wantWait: 250 * time.Millisecond},
		{name: "503 attempt 3", attempt: 3, resp: rtResp(503), wantD: Retry, wantWait: 500 * time.Millisecond},
		{name: "max attempts stop", attempt: 4, resp: rtResp(503), wantD: StopExhausted},
		{name: "max retries 0", attempt: 1, resp: rtResp(500), maxRetries: -1, wantD: StopExhausted},
		// A rate-limited answer may be retried twice MaxRetries times.
		{name: "429 past MaxRetries", attempt: 4, resp: rtResp(429), wantD: Retry, wantWait: 500 * time.Millisecond}, // the backoff of retry 3, not 4
		{name: "429 at twice MaxRetries, bare", attempt: 6, resp: rtResp(429), wantD: Retry, wantWait: 500 * time.Millisecond},
		{name: "429 at twice MaxRetries", attempt: 6, resp: rtResp(429, "Retry-After", "1"), wantD: Retry, wantWait: 1200 * time.Millisecond},
		{name: "429 past twice MaxRetries", attempt: 7, resp: rtResp(429, "Retry-After", "1"), wantD: StopExhausted},
		{name: "503 after throttles", attempt: 5, resp: rtResp(503, "Retry-After", "1"), wantD: StopExhausted},
		{name: "429 with max retries 0", attempt: 1, resp: rtResp(429), maxRetries: -1, wantD: StopExhausted},
		{name: "429 after 503s", attempt: 4, resp: rtResp(429, "Retry-After", "1"), wantD: Retry, wantWait: 1200 * time.Millisecond},
		{name: "rate-limited problem at 503", attempt: 5, resp: rtRateLimitedProblem(), wantD: Retry, wantWait: 500 * time.Millisecond},
		{name: "429 with max retries MaxInt", attempt: 1000, resp: rtResp(429, "Retry-After", "1"), maxRetries: math.MaxInt, wantD: Retry, wantWait: 1200 * time.Millisecond},
		{name: "max delay cap", attempt: 12, maxRetries: 20, resp: rtResp(502), wantD: Retry, wantWait: 4 * time.Second},
		{name: "408", attempt: 1, resp: rtResp(408), wantD: Retry, wantWait: 125 * time.Millisecond},
		{name: "504", attempt: 1, resp: rtResp(504), wantD: Retry, wantWait: 125 * time.Millisecond},
		{name: "429 retry-after seconds", attempt: 1, resp: rtResp(429, "Retry-After", "3"), wantD: Retry, wantWait: 3600 * time.Millisecond}, // + half of 40% (Rand 0.5): retryafter.go
		{name: "503 retry-after http-date", attempt: 1, resp: rtResp(503, "Retry-After", now.Add(5*time.Second).Format(http.TimeFormat)), wantD: Retry, wantWait: 6 * time.Second},
		{name: "503 retry-after past date", attempt: 1, resp: rtResp(503, "Retry-After", now.Add(-time.Hour).Format(http.TimeFormat)), wantD: Retry, wantWait: 0},
		{name: "429 retry-after-ms", attempt: 1, resp: rtResp(429, "Retry-After-Ms", "1500"), wantD: Retry, wantWait: 1800 * time.Millisecond},
		{name: "retry-after-ms wins", attempt: 1, resp: rtResp(429, "Retry-After-Ms", "40", "Retry-After", "9"), wantD: Retry, wantWait: 48 * time.Millisecond},
		{name: "retry-after garbage uses backoff", attempt: 1, resp: rtResp(429, "Retry-After", "soon"), wantD: Retry, wantWait: 125 * time.Millisecond},
		{name: "retry-after ignored on 500", attempt: 1, resp: rtResp(500, "Retry-After", "7"), wantD: Retry, wantWait: 125 * time.Millisecond},
		{name: "retry-after at cap", attempt: 1, resp: rtResp(429, "Retry-After", "20"), wantD: Retry, wantWait: 21 * time.Second}, // the jitter at most 2 s
		{name: "retry-after over cap", attempt: 1, resp: rtResp(429, "Retry-After", "30"), wantD: StopRetryAfter, wantWait: 30 * time.Second},
		{name: "retry-after-ms over cap", attempt: 1, resp: rtResp(503, "Retry-After-Ms", "25000"), wantD: StopRetryAfter, wantWait: 25 * time.Second},
		{name: "retry-after http-date over cap", attempt: 1, resp: rtResp(503, "Retry-After", now.Add(time.Minute).Format(http.TimeFormat)), wantD: StopRetryAfter, wantWait: time.Minute},
		{name: "retry-after past deadline", attempt: 1, resp: rtResp(429, "Retry-After", "2"), deadline: time.Second, wantD: StopDeadline, wantWait: 2 * time.Second},
		{name: "backoff past deadline", attempt: 1, base: time.Second, resp: rtResp(503), deadline: 400 * time.Millisecond, wantD: StopDeadline, wantWait: 500 * time.Millisecond},
		{name: "backoff ends exactly at deadline", attempt: 1, base: time.Second, resp: rtResp(503), deadline: 500 * time.Millisecond, wantD: Retry, wantWait: 500 * time.Millisecond},
		{name: "backoff within deadline", attempt: 1, resp: rtResp(503), deadline: time.Second, wantD: Retry, wantWait: 125 * time.Millisecond},
		{name: "context done", attempt: 1, resp: rtResp(503), cancelled: true, wantD: Done},
		{name: "200", attempt: 1, resp: rtResp(200), wantD: Done},
		{name: "501", attempt: 1, resp: rtResp(501), wantD: Done},
		{name: "400", attempt: 1, resp: rtResp(400), wantD: Done},
		{name: "non-idempotent 503", attempt: 1, nonIdem: true, resp: rtResp(503), wantD: Done},
		{name: "non-idempotent 429", attempt: 1, nonIdem: true, resp: rtResp(429, "Retry-After", "1"), wantD: Done},
		{name: "non-idempotent dial error", attempt: 1, nonIdem: true, err: dialErr, wantD: Retry, wantWait: 125 * time.Millisecond},
		{name: "non-idempotent dial error exhausted", attempt: 4, nonIdem: true, err: dialErr, wantD: StopExhausted},
		{name: "non-idempotent reset", attempt: 1, nonIdem: true, err: syscall.ECONNRESET, wantD: Done},
		{name: "idempotent reset", attempt: 1, err: syscall.ECONNRESET, wantD: Retry, wantWait: 125 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := DefaultRetryPolicy()
			p.Rand = func() float64 { return 0.5 }
			p.Now = func() time.Time { return now }
			switch {
			case c.maxRetries < 0:
				p.MaxRetries = 0
			case c.maxRetries > 0:
				p.MaxRetries = c.maxRetries
			}
			if c.base > 0 {
				p.BaseDelay = c.base
			}
			ctx := context.Background()
			if c.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, now.Add(c.deadline))
				defer cancel()
			}
			if c.cancelled {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				cancel()
			}
			d, wait := p.Decide(ctx, c.attempt, !c.nonIdem, c.resp, c.err)
			if d != c.wantD || wait != c.wantWait {
				t.Fatalf("Decide = (%v, %v), want (%v, %v)", d, wait, c.wantD, c.wantWait)
			}
		})
	}
}

// TestDecideSeededRun plays a whole failing call through Decide with a
// seeded source: three retries with the exact seeded waits, then a stop.
func TestDecideSeededRun(t *testing.T) {
	p := DefaultRetryPolicy()
	p.Rand = rand.New(rand.NewPCG(1, 2)).Float64
	var got []time.Duration
	var last Decision
	for attempt := 1; attempt <= 10; attempt++ {
		d, wait := p.Decide(context.Background(), attempt, true, rtResp(503), nil)
		last = d
		if d != Retry {
			if attempt != 4 {
				t.Fatalf("stopped after attempt %d, want 4", attempt)
			}
			break
		}
		got = append(got, wait)
	}
	if last != StopExhausted {
		t.Fatalf("last decision = %v, want StopExhausted", last)
	}
	if fmt.Sprint(got) != fmt.Sprint(rtSeedWaits[:3]) {
		t.Fatalf("waits = %v, want %v", got, rtSeedWaits[:3])
	}
}

func TestRetriableErrors(t *testing.T) {
	wrap := func(err error) error { return &url.Error{Op: "Put", URL: "https://x/y", Err: err} }
	cases := []struct {
		name       string
		err        error
		idempotent bool
		nonIdem    bool
	}{
		{"refused", wrap(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), true, true},
		{"proxyconnect", wrap(&net.OpError{Op: "proxyconnect", Net: "tcp", Err: syscall.ECONNREFUSED}), true, true},
		{"reset", wrap(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), true, false},
		{"eof before response", wrap(io.EOF), true, false},
		{"unexpected eof", io.ErrUnexpectedEOF, true, false},
		{"attempt timeout", wrap(rtTimeoutErr{}), true, false},
		{"dns temporary", wrap(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "server misbehaving", IsTemporary: true}}), true, true},
		{"dns not found", wrap(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", IsNotFound: true}}), false, false},
		{"cert verification", wrap(&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), false, false},
		{"unknown authority", wrap(x509.UnknownAuthorityError{}), false, false},
		{"hostname", wrap(x509.HostnameError{Host: "x"}), false, false},
		{"expired", wrap(x509.CertificateInvalidError{Reason: x509.Expired}), false, false},
		{"tls record header", wrap(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), false, false},
		{"tls alert", wrap(&net.OpError{Op: "remote error", Err: tls.AlertError(42)}), false, false},
		{"invalid url", &url.Error{Op: "parse", URL: "::", Err: stderrors.New("missing protocol scheme")}, false, false},
		{"scheme mismatch", wrap(http.ErrSchemeMismatch), false, false},

		// Transient failures the SDK can classify, however they are wrapped.
		{"broken pipe", wrap(&net.OpError{Op: "write", Net: "tcp", Err: &os.SyscallError{Syscall: "write", Err: syscall.EPIPE}}), true, false},
		{"bare errnos", stderrors.Join(syscall.ECONNABORTED), true, false},
		{"reset without an OpError", fmt.Errorf("proxy: %w", syscall.ECONNRESET), true, false},
		{"read failure", wrap(&net.OpError{Op: "read", Net: "tcp", Err: stderrors.New("use of closed network connection")}), true, false},
		{"body read cut short", fmt.Errorf("reading the 200 response body: %w", io.ErrUnexpectedEOF), true, false},
		{"body read timeout", fmt.Errorf("reading the 200 response body: %w", rtTimeoutErr{}), true, false},
		{"timeout under a wrapper inside url.Error", wrap(fmt.Errorf("proxy: %w", rtTimeoutErr{})), true, false},
		{"server closed idle connection", wrap(stderrors.New("http: server closed idle connection")), true, false},
		{"http2 GOAWAY and close", wrap(stderrors.New(`http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=NO_ERROR, debug=""`)), true, false},
		{"http2 connection lost", wrap(stderrors.New("http2: client connection lost")), true, false},

		// Anything else is not known to be transient: repeating a malformed
		// request cannot help.
		{"invalid header value", wrap(stderrors.New(`net/http: invalid header field value for "User-Agent"`)), false, false},
		{"invalid header name", wrap(stderrors.New(`net/http: invalid header field name "X Bad"`)), false, false},
		{"unknown error", stderrors.New("something odd"), false, false},
		{"content length mismatch", wrap(stderrors.New("http: ContentLength=10 with Body length 3")), false, false},
		{"canceled by a transport", wrap(context.Canceled), false, false},
		{"net.Error that is not a timeout", wrap(rtNotTimeoutErr{}), false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Retriable(true, nil, c.err); got != c.idempotent {
				t.Errorf("Retriable(idempotent) = %v, want %v", got, c.idempotent)
			}
			if got := Retriable(false, nil, c.err); got != c.nonIdem {
				t.Errorf("Retriable(non-idempotent) = %v, want %v", got, c.nonIdem)
			}
		})
	}
}

type rtTimeoutErr struct{}

func (rtTimeoutErr) Error() string   { return "Client.Timeout exceeded while awaiting headers" }
func (rtTimeoutErr) Timeout() bool   { return true }
func (rtTimeoutErr) Temporary() bool { return true }

// rtNotTimeoutErr is a net.Error that says neither timeout nor anything
// else the SDK can classify.
type rtNotTimeoutErr struct{}

func (rtNotTimeoutErr) Error() string   { return "weird network state" }
func (rtNotTimeoutErr) Timeout() bool   { return false }
func (rtNotTimeoutErr) Temporary() bool { return false }

func TestRetriableStatuses(t *testing.T) {
	for status := 100; status < 600; status++ {
		want := false
		switch status {
		case 408, 429, 500, 502, 503, 504:
			want = true
		}
		if got := Retriable(true, rtResp(status), nil); got != want {
			t.Errorf("Retriable(%d) = %v, want %v", status, got, want)
		}
		if Retriable(false, rtResp(status), nil) {
			t.Errorf("Retriable(non-idempotent, %d) = true, want false", status)
		}
	}
}

func TestRetriableProviderNotConfigured(t *testing.T) {
	const problem = `{"type":"https://errors.example.com/provider-not-configured","title":"Provider not configured","status":503,"serviceCode":"50300001","detail":"The access-management provider is not configured for this environment"}`
	h := http.Header{"Content-Type": {"application/problem+json"}}
	if Retriable(true, apierrors.Decode(503, h, []byte(problem)), nil) {
		t.Fatal("provider-not-configured 503 is retriable, want not")
	}
	other := `{"type":"about:blank","title":"Service Unavailable","status":503,"serviceCode":"50300002"}`
	if !Retriable(true, apierrors.Decode(503, h, []byte(other)), nil) {
		t.Fatal("ordinary 503 problem is not retriable, want retriable")
	}
}
