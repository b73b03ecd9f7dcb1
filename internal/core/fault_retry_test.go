package core

import (
	"bytes"
	"context"
	"encoding/json"
	stderrors "errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// --- Retry sequence, telemetry header and body replay -----------------------

func TestRetry503Then503Then200(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		if hit < 3 {
			rtJSON(w, 503, `{"title":"Service Unavailable","status":503,"serviceCode":"50300000"}`)
			return
		}
		rtJSON(w, 200, `{"ok":true}`)
	})
	var waits []time.Duration
	tr := &rtBodyTracker{rt: rtNewTransport(t)}
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		s.Transport = tr
		s.Retry.Rand = rand.New(rand.NewPCG(1, 2)).Float64
		s.Retry.OnRetry = func(n int, d time.Duration) {
			if n != len(waits)+1 {
				t.Errorf("OnRetry retry number %d, want %d", n, len(waits)+1)
			}
			waits = append(waits, d)
		}
	})
	var out struct{ OK bool }
	status := 0
	call := rtCall(rtPutOp, &out)
	call.Status = &status
	if err := c.do(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if !out.OK || status != 200 {
		t.Fatalf("out = %+v, status %d; want ok, 200", out, status)
	}
	// The exact seeded waits: r_n × 1ms·2ⁿ for the PCG(1,2) sequence.
	if want := []time.Duration{676455, 922772}; fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Fatalf("waits = %v, want %v", waits, want)
	}
	reqs := srv.recorded()
	if len(reqs) != 3 {
		t.Fatalf("server saw %d requests, want 3", len(reqs))
	}
	want, _ := json.Marshal(rtBody)
	for i, r := range reqs {
		if !bytes.Equal(r.Body, want) || r.CL != int64(len(want)) {
			t.Errorf("attempt %d body %q (Content-Length %d), want %q (%d)", i+1, r.Body, r.CL, want, len(want))
		}
		got := r.Header.Values(RetryAttemptHeader)
		if i == 0 && len(got) != 0 {
			t.Errorf("first attempt carries %s: %q", RetryAttemptHeader, got)
		}
		if i > 0 && (len(got) != 1 || got[0] != strconv.Itoa(i)) {
			t.Errorf("attempt %d %s = %q, want [%d]", i+1, RetryAttemptHeader, got, i)
		}
		if r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("attempt %d Content-Type = %q", i+1, r.Header.Get("Content-Type"))
		}
	}
	// Bodies drained before retrying, so the connection is reused.
	rtWantDrained(t, tr, 3)
	rtWantReuse(t, srv.conns.Load(), 3)
}

func TestRetryExhaustedReturnsLastResponse(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		w.Header().Set("X-Request-Id", "req-"+strconv.Itoa(hit))
		rtJSON(w, 502, `{"title":"Bad Gateway","status":502,"serviceCode":"50200000","detail":"attempt `+strconv.Itoa(hit)+`"}`)
	})
	c := rtNewClient(t, srv.URL, nil)
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	ae := rtWantAPIError(t, err, 502, 4)
	if ae.RequestID != "req-4" || ae.Problem == nil || ae.Problem.Detail != "attempt 4" {
		t.Fatalf("error does not describe the last response: request ID %q, problem %+v", ae.RequestID, ae.Problem)
	}
	if ae.Operation != "test.Put" || ae.Method != http.MethodPut || ae.Path != "/things/t-1" {
		t.Fatalf("error names %q %s %s", ae.Operation, ae.Method, ae.Path)
	}
	if srv.hits() != 4 {
		t.Fatalf("server hits = %d, want 4 (3 retries)", srv.hits())
	}
}

func TestRetryMaxRetriesClientWideAndPerCall(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 500, `{}`) })
	c := rtNewClient(t, srv.URL, func(s *Settings) { s.Retry.MaxRetries = 1 })
	rtWantAPIError(t, c.do(context.Background(), rtCall(rtPutOp, nil)), 500, 2)
	noRetry := func(s *Settings) error { s.Retry.MaxRetries = 0; return nil }
	rtWantAPIError(t, c.do(context.Background(), rtCall(rtPutOp, nil), noRetry), 500, 1)
	five := func(s *Settings) error { s.Retry.MaxRetries = 5; return nil }
	rtWantAPIError(t, c.do(context.Background(), rtCall(rtPutOp, nil), five), 500, 6)
	if srv.hits() != 2+1+6 {
		t.Fatalf("server hits = %d, want 9", srv.hits())
	}
}

// --- Statuses that are not retried -----------------------------------------

func TestNotRetriedStatuses(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 409, 422, 501} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
				w.Header().Set("Content-Type", "application/problem+json")
				w.WriteHeader(status)
				_, _ = fmt.Fprintf(w, `{"type":"about:blank","title":%q,"status":%d,"serviceCode":"00000000"}`, http.StatusText(status), status)
			})
			c := rtNewClient(t, srv.URL, nil)
			rtWantAPIError(t, c.do(context.Background(), rtCall(rtPutOp, nil)), status, 1)
			if srv.hits() != 1 {
				t.Fatalf("server hits = %d, want 1", srv.hits())
			}
		})
	}
}

// Kinds that retrying cannot fix are not retried, whatever their status.
func TestFinalKindsNotRetried(t *testing.T) {
	for _, tt := range []struct {
		status int
		body   string
		kind   error
	}{
		{501, `{"type":"about:blank","title":"Not implemented","status":501,"serviceCode":"not-implemented"}`, apierrors.ErrNotImplemented},
		{503, `{"type":"https://errors.example.com/provider-not-configured","title":"Provider not configured","status":503,"serviceCode":"50300001"}`, apierrors.ErrProviderNotConfigured},
	} {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
				w.Header().Set("Content-Type", "application/problem+json")
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			})
			c := rtNewClient(t, srv.URL, nil)
			err := c.do(context.Background(), rtCall(rtPutOp, nil))
			ae := rtWantAPIError(t, err, tt.status, 1)
			if !stderrors.Is(err, tt.kind) || ae.Problem == nil || srv.hits() != 1 {
				t.Fatalf("err %v, hits %d; want %v with its problem decoded after 1 hit", err, srv.hits(), tt.kind)
			}
		})
	}
}

func TestNonIdempotentNotRetriedOnStatus(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 503, `{}`) })
	c := rtNewClient(t, srv.URL, nil)
	rtWantAPIError(t, c.do(context.Background(), rtCall(rtPostOp, nil)), 503, 1)
}
