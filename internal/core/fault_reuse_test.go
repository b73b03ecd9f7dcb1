package core

import (
	"github.com/hashicorp/go-cleanhttp"

	"context"
	stderrors "errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// --- Body hygiene and connection reuse ---------------------------------------

// rtCountingTransport counts round trips: attempts as the client starts
// them, whether or not they reach the server.
type rtCountingTransport struct {
	rt http.RoundTripper
	n  *atomic.Int32
}

func (c *rtCountingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.rt.RoundTrip(r)
}

// rtBodyTracker wraps a transport and records every response body.
type rtBodyTracker struct {
	rt     http.RoundTripper
	mu     sync.Mutex
	bodies []*rtTrackedBody
}

type rtTrackedBody struct {
	rc     io.ReadCloser
	eof    atomic.Bool
	closed atomic.Bool
}

func (b *rtTrackedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.eof.Store(true)
	}
	return n, err
}

func (b *rtTrackedBody) Close() error { b.closed.Store(true); return b.rc.Close() }

func (t *rtBodyTracker) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(r)
	if resp != nil {
		tb := &rtTrackedBody{rc: resp.Body}
		resp.Body = tb
		t.mu.Lock()
		t.bodies = append(t.bodies, tb)
		t.mu.Unlock()
	}
	return resp, err
}

func TestEveryBodyDrainedAndClosed(t *testing.T) {
	big := strings.Repeat("x", 100<<10) // far beyond go-retryablehttp's 4 KiB drain
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		switch {
		case r.URL.Path == "/things/ok" && hit%2 == 1:
			rtJSON(w, 503, `{"detail":"`+big+`"}`)
		case r.URL.Path == "/things/ok":
			rtJSON(w, 200, `{"ok":true}`+"\n\n  ")
		default:
			rtJSON(w, 404, `{"code":"NOT_FOUND","message":"`+big+`"}`)
		}
	})
	tr := &rtBodyTracker{rt: rtNewTransport(t)}
	c := rtNewClient(t, srv.URL, func(s *Settings) { s.Transport = tr })
	var out struct{ OK bool }
	if err := c.do(context.Background(), &Call{Op: rtPutOp, PathParams: [2]string{"ok"}, Result: &out}); err != nil || !out.OK {
		t.Fatalf("err %v, out %+v", err, out)
	}
	rtWantAPIError(t, c.do(context.Background(), &Call{Op: rtPutOp, PathParams: [2]string{"missing"}}), 404, 1)
	rtWantDrained(t, tr, 3)
	rtWantReuse(t, srv.conns.Load(), 3)
}

func TestThousandCallsOneConnection(t *testing.T) {
	var flaky sync.Map
	errBody := `{"type":"about:blank","title":"x","status":0,"serviceCode":"00000000","detail":"` + strings.Repeat("e", 100<<10) + `"}` // longer than the 64 KiB snippet: the rest must be drained
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		id := strings.TrimPrefix(r.URL.Path, "/things/")
		switch id[:2] {
		case "ok":
			rtJSON(w, 200, `{"ok":true}`)
		case "br":
			rtJSON(w, 400, errBody)
		case "nf":
			rtJSON(w, 404, `{"code":"NOT_FOUND","message":"no"}`)
		case "ie":
			rtJSON(w, 500, errBody)
		case "fl": // 503 with a 100 KiB body, then 200
			if _, seen := flaky.LoadOrStore(id, true); !seen {
				rtJSON(w, 503, errBody)
				return
			}
			rtJSON(w, 200, `{"ok":true}`)
		}
	})
	// The SDK's default pooled transport, limited to one connection per
	// host: under CPU starvation net/http may dial a spare connection while
	// the idle one is on its way back to the pool, which says nothing about
	// draining. With the limit, a new connection is dialed only when the
	// previous one was closed, which is what an undrained body causes.
	tr := cleanhttp.DefaultPooledTransport()
	tr.MaxConnsPerHost = 1
	t.Cleanup(tr.CloseIdleConnections)
	c := rtNewClient(t, srv.URL, func(s *Settings) { s.Transport = tr })
	noRetry := func(s *Settings) error { s.Retry.MaxRetries = 0; return nil }
	ctx := context.Background()
	kinds := []string{"ok", "br", "nf", "ie", "fl"}
	for i := range 1000 {
		kind := kinds[i%len(kinds)]
		call := &Call{Op: rtPutOp, PathParams: [2]string{kind + strconv.Itoa(i)}, Body: rtBody}
		var out struct{ OK bool }
		call.Result = &out
		var err error
		switch kind {
		case "ie":
			err = c.do(ctx, call, noRetry)
		default:
			err = c.do(ctx, call)
		}
		wantErr := kind == "br" || kind == "nf" || kind == "ie"
		if (err != nil) != wantErr || (!wantErr && !out.OK) {
			t.Fatalf("call %d (%s): err %v, out %+v", i, kind, err, out)
		}
	}
	// One connection is what a quiet machine shows. net/http itself gives
	// up a connection when its writer goroutine has not confirmed the
	// request was written within 50 ms of the response (transport.go,
	// maxWriteWaitBeforeConnReuse), which happens only under heavy CPU
	// starvation; allow two such drops. A body left undrained costs one
	// connection per error response: hundreds here.
	if n := srv.conns.Load(); n > 3 {
		t.Fatalf("%d TCP connections for 1,000 calls, want 1", n)
	} else if n > 1 {
		t.Logf("%d TCP connections for 1,000 calls: net/http dropped a connection under load", n)
	}
	if h := srv.hits(); h != 1200 {
		t.Fatalf("server hits = %d, want 1200 (200 flaky calls retried once)", h)
	}
}

// rtIdleRecorder is a user transport that records CloseIdleConnections.
type rtIdleRecorder struct {
	http.RoundTripper
	closes atomic.Int32
}

func (r *rtIdleRecorder) CloseIdleConnections() { r.closes.Add(1) }

func TestGivingUpKeepsUserIdleConnections(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		switch r.URL.Path {
		case "/things/reset":
			rtReset(t, w)
		case "/things/slow":
			rtJSON(w, 503, `{}`)
		default:
			rtJSON(w, 503, `{}`)
		}
	})
	rec := &rtIdleRecorder{RoundTripper: rtNewTransport(t)}

	// The recorder works, and go-retryablehttp does call it when it gives up
	// on a transport it can reach directly.
	bare := &retryablehttp.Client{HTTPClient: &http.Client{Transport: rec}, RetryMax: 1,
		RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond, CheckRetry: retryablehttp.DefaultRetryPolicy, Backoff: retryablehttp.DefaultBackoff}
	req, _ := retryablehttp.NewRequest(http.MethodGet, srv.URL+"/things/reset", nil)
	if _, err := bare.Do(req); err == nil {
		t.Fatal("bare go-retryablehttp: want an error")
	}
	if rec.closes.Load() == 0 {
		t.Fatal("recorder saw no CloseIdleConnections from bare go-retryablehttp; the test cannot detect the problem")
	}
	rec.closes.Store(0)

	for _, hc := range []bool{false, true} {
		c := rtNewClient(t, srv.URL, func(s *Settings) {
			if hc {
				s.Transport, s.HTTPClient = nil, &http.Client{Transport: rec}
			} else {
				s.Transport = rec
			}
			other(s).Admission = nil // every failure here must be retried: none refused
		})
		ctx := context.Background()
		rtWantTransportError(t, c.do(ctx, &Call{Op: rtPutOp, PathParams: [2]string{"reset"}}), 4)
		rtWantAPIError(t, c.do(ctx, &Call{Op: rtPutOp, PathParams: [2]string{"503"}}), 503, 4)
		cctx, cancel := context.WithCancel(ctx)
		slow := func(s *Settings) error {
			s.Retry.BaseDelay, s.Retry.MaxDelay = time.Minute, time.Minute
			s.Retry.OnRetry = func(int, time.Duration) { cancel() }
			return nil
		}
		err := c.do(cctx, &Call{Op: rtPutOp, PathParams: [2]string{"slow"}}, slow)
		if !stderrors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		signFail := 0
		call := &Call{Op: rtPutOp, PathParams: [2]string{"503"}, Sign: func(*http.Request, []byte) error {
			if signFail++; signFail > 1 {
				return stderrors.New("sign")
			}
			return nil
		}}
		if err := c.do(ctx, call); !stderrors.Is(err, apierrors.ErrTokenUnavailable) {
			t.Fatalf("err = %v, want a TokenError", err)
		}
		if n := rec.closes.Load(); n != 0 {
			t.Fatalf("HTTPClient=%v: the SDK called the user's CloseIdleConnections %d times", hc, n)
		}
	}
}
