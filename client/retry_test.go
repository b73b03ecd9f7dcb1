package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
)

const retryPMID = "3fa85f64-5717-4562-b3fc-2c963f66afa6"

const retryPMJSON = `{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","billingAccountId":"9b2f4c1e-2a57-4d0b-9a43-1c7c2f5e8d10",
"lastFourDigits":"4242","cardBrand":"visa","expDate":"08/2031","primary":true,
"createdAt":"2024-01-02T03:04:05Z","updatedAt":"2024-01-02T03:04:05Z"}`

func retryJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// newRetryClient builds a public client on a test-owned transport with a
// 1ms..2ms backoff, so retries are fast.
func newRetryClient(t *testing.T, url string, opts ...option.RequestOption) *client.Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	all := append([]option.RequestOption{option.WithBaseURL(url), option.WithTokenSource(nil), option.WithTransport(tr),
		option.WithRetryBackoff(time.Millisecond, 2*time.Millisecond)}, opts...)
	return newClient(t, all...)
}

func updatePM(ctx context.Context, c *client.Client, opts ...option.RequestOption) (*payments.PaymentMethod, error) {
	return c.Payments.UpdatePaymentMethod(ctx, retryPMID, payments.UpdatePaymentMethodParams{SetAsPrimary: new(true), ExpDate: new("08/2031")}, opts...)
}

func attemptsOf(t *testing.T, err error) int {
	t.Helper()
	var ae *apierrors.Error
	if errors.As(err, &ae) {
		return ae.Attempts
	}
	var te *apierrors.TransportError
	if errors.As(err, &te) {
		return te.Attempts
	}
	t.Fatalf("err = %T %v, want *errors.Error or *errors.TransportError", err, err)
	return 0
}

func TestPublicRetryThenSuccess(t *testing.T) {
	srv := newRetryServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		if hit < 3 {
			retryJSON(w, http.StatusServiceUnavailable, `{"title":"Service Unavailable","status":503,"serviceCode":"50300000"}`)
			return
		}
		retryJSON(w, http.StatusOK, retryPMJSON)
	})
	c := newRetryClient(t, srv.URL)
	pm, err := updatePM(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if pm.LastFourDigits != "4242" || !pm.Primary {
		t.Fatalf("payment method = %+v", pm)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if want := []string{"", "1", "2"}; len(srv.tries) != 3 || srv.tries[0] != want[0] || srv.tries[1] != want[1] || srv.tries[2] != want[2] {
		t.Fatalf("X-Retry-Attempt per attempt = %q, want %q", srv.tries, want)
	}
	for i := 1; i < len(srv.body); i++ {
		if !bytes.Equal(srv.body[i], srv.body[0]) || len(srv.body[0]) == 0 {
			t.Fatalf("attempt %d body %q differs from the first %q", i+1, srv.body[i], srv.body[0])
		}
	}
	// One connection on a quiet machine. net/http drops a connection when
	// its writer goroutine has not confirmed the request written within
	// 50 ms of the response (maxWriteWaitBeforeConnReuse), which CPU
	// starvation alone causes; an undrained body would cost a connection
	// per attempt, so only no reuse at all fails.
	if n := srv.conns.Load(); n >= 3 {
		t.Fatalf("%d connections for 3 attempts, want 1", n)
	} else if n > 1 {
		t.Logf("%d connections for 3 attempts: net/http dropped one under load", n)
	}
}

func TestPublicMaxRetries(t *testing.T) {
	srv := newRetryServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { retryJSON(w, 500, `{}`) })
	ctx := context.Background()

	def := newRetryClient(t, srv.URL)
	_, err := updatePM(ctx, def)
	if n := attemptsOf(t, err); n != 4 {
		t.Fatalf("default client: %d attempts, want 4 (3 retries)", n)
	}
	if _, err := updatePM(ctx, def, option.WithMaxRetries(0)); attemptsOf(t, err) != 1 {
		t.Fatalf("per-call WithMaxRetries(0): %d attempts, want 1", attemptsOf(t, err))
	}
	one := newRetryClient(t, srv.URL, option.WithMaxRetries(1))
	if _, err := updatePM(ctx, one); attemptsOf(t, err) != 2 {
		t.Fatalf("client-wide WithMaxRetries(1): %d attempts, want 2", attemptsOf(t, err))
	}
	if _, err := updatePM(ctx, one, option.WithMaxRetries(2)); attemptsOf(t, err) != 3 {
		t.Fatalf("per-call WithMaxRetries(2) over client-wide 1: %d attempts, want 3", attemptsOf(t, err))
	}
	if h := srv.hits(); h != 4+1+2+3 {
		t.Fatalf("server hits = %d, want 10", h)
	}
}

func TestPublicMaxRetryAfter(t *testing.T) {
	srv := newRetryServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		if hit <= 2 { // call 1: one 429; call 2: a 429, then 200
			w.Header().Set("Retry-After-Ms", "30")
			retryJSON(w, http.StatusTooManyRequests, `{"title":"Too Many Requests","status":429,"serviceCode":"42900000"}`)
			return
		}
		retryJSON(w, http.StatusOK, retryPMJSON)
	})
	c := newRetryClient(t, srv.URL, option.WithMaxRetryAfter(10*time.Millisecond))
	_, err := updatePM(context.Background(), c)
	var ae *apierrors.Error
	if !errors.As(err, &ae) || !errors.Is(err, apierrors.ErrRateLimited) || ae.RetryAfter != 30*time.Millisecond || ae.Attempts != 1 {
		t.Fatalf("err = %v, want the rate-limited error asking 30ms after 1 attempt", err)
	}
	// A per-call cap above the asked wait lets the retry happen.
	start := time.Now()
	if _, err := updatePM(context.Background(), c, option.WithMaxRetryAfter(time.Second)); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 30*time.Millisecond {
		t.Fatalf("retried after %v, want the asked 30ms honoured", el)
	}
	if srv.hits() != 3 {
		t.Fatalf("server hits = %d, want 3", srv.hits())
	}
}

// A 503 asking for a wait longer than WithMaxRetryAfter stops at once, like
// a 429: the platform is out of capacity for that long. It matches
// ErrRateLimited beside ErrServiceUnavailable, and RetryAfterOf says how
// long.
func TestPublic503OverMaxRetryAfterIsRateLimited(t *testing.T) {
	srv := newRetryServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		w.Header().Set("Retry-After", "30")
		retryJSON(w, http.StatusServiceUnavailable, `{"title":"Service Unavailable","status":503,"serviceCode":"50300000"}`)
	})
	c := newRetryClient(t, srv.URL)
	_, err := updatePM(context.Background(), c)
	var ae *apierrors.Error
	if !errors.As(err, &ae) || ae.Attempts != 1 || srv.hits() != 1 {
		t.Fatalf("err = %v after %d hits, want the 503 after 1 attempt", err, srv.hits())
	}
	if !errors.Is(err, apierrors.ErrRateLimited) || !errors.Is(err, apierrors.ErrServiceUnavailable) {
		t.Fatalf("err = %v: want ErrRateLimited and ErrServiceUnavailable", err)
	}
	if wait, ok := apierrors.RetryAfterOf(err); !ok || wait != 30*time.Second {
		t.Fatalf("RetryAfterOf = %v, %v; want 30s", wait, ok)
	}
}

// A wait past the WithTimeout deadline is not started. Had it started, the
// call would end at the deadline with a TransportError wrapping
// DeadlineExceeded; getting the 503 itself proves it stopped at once,
// without timing the call (the 3s deadline leaves a slow machine room for
// the first answer).
func TestPublicDeadlineCutsRetryAfter(t *testing.T) {
	srv := newRetryServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		w.Header().Set("Retry-After", "10")
		retryJSON(w, http.StatusServiceUnavailable, `{}`)
	})
	c := newRetryClient(t, srv.URL, option.WithTimeout(3*time.Second))
	_, err := updatePM(context.Background(), c)
	var ae *apierrors.Error
	if !errors.As(err, &ae) || ae.RetryAfter != 10*time.Second || ae.Attempts != 1 || srv.hits() != 1 {
		t.Fatalf("err = %v after %d hits, want the 503 asking 10s after 1 attempt", err, srv.hits())
	}
}

func TestPublicAttemptTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := newRetryServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	c := newRetryClient(t, srv.URL, option.WithMaxRetries(1))
	start := time.Now()
	_, err := updatePM(context.Background(), c, option.WithAttemptTimeout(40*time.Millisecond))
	var te *apierrors.TransportError
	if !errors.As(err, &te) || !te.Timeout() || te.Attempts != 2 {
		t.Fatalf("err = %v, want a timed-out TransportError after 2 attempts", err)
	}
	// At least 2 × 40ms (a timer never fires early); the upper bound only
	// catches a hang, so a starved machine passes.
	if el := time.Since(start); el < 80*time.Millisecond || el > 30*time.Second {
		t.Fatalf("took %v, want at least 2 × 40ms", el)
	}
}

func TestPublicNotRetried(t *testing.T) {
	srv := newRetryServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		w.Header().Set("Content-Type", "application/problem+json")
		if r.Header.Get("X-Case") == "400" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"type":"about:blank","title":"Bad Request","status":400,"serviceCode":"40000000"}`)
			return
		}
		w.WriteHeader(http.StatusNotImplemented)
		_, _ = io.WriteString(w, `{"type":"about:blank","title":"Not implemented","status":501,"serviceCode":"not-implemented"}`)
	})
	c := newRetryClient(t, srv.URL)
	_, err := updatePM(context.Background(), c)
	if !errors.Is(err, apierrors.ErrNotImplemented) || attemptsOf(t, err) != 1 {
		t.Fatalf("err = %v, want ErrNotImplemented after 1 attempt", err)
	}
	_, err = updatePM(context.Background(), c, option.WithHeader("X-Case", "400"))
	if !errors.Is(err, apierrors.ErrBadRequest) || attemptsOf(t, err) != 1 {
		t.Fatalf("err = %v, want ErrBadRequest after 1 attempt", err)
	}
	if srv.hits() != 2 {
		t.Fatalf("server hits = %d, want 2", srv.hits())
	}
}

func TestPublicRetryOptionValidation(t *testing.T) {
	for name, opt := range map[string]option.RequestOption{
		"WithMaxRetries(-1)":       option.WithMaxRetries(-1),
		"WithRetryBackoff(0,1s)":   option.WithRetryBackoff(0, time.Second),
		"WithRetryBackoff(2s,1s)":  option.WithRetryBackoff(2*time.Second, time.Second),
		"WithMaxRetryAfter(-1)":    option.WithMaxRetryAfter(-1),
		"WithAttemptTimeout(-1ns)": option.WithAttemptTimeout(-1),
	} {
		if _, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil), opt); !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Errorf("%s: New err = %v, want ErrInvalidInput", name, err)
		}
	}
}

func TestProviderNotConfiguredIsFinalOnAny5xx(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"type":"about:blank","title":"Provider not configured","status":500,"serviceCode":"50000009"}`)
	})
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithRetryBackoff(time.Millisecond, time.Millisecond))
	err := updateFirstName(t.Context(), c)
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || apiErr.Kind() != apierrors.ErrProviderNotConfigured || apiErr.Temporary() {
		t.Fatalf("err = %v, want a final provider-not-configured error", err)
	}
	if n := srv.reqs.Load(); n != 1 {
		t.Fatalf("%d requests, want 1: retrying cannot fix configuration", n)
	}
}

// An error the SDK cannot classify as transient, such as net/http's invalid
// header value, is returned after one attempt: the same request would fail
// the same way.
func TestUnclassifiedTransportErrorOneAttempt(t *testing.T) {
	t.Parallel()
	var trips atomic.Int64
	c := newClient(t, option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil),
		option.WithRetryBackoff(time.Millisecond, time.Millisecond),
		option.WithTransport(roundTripFunc(func(*http.Request) (*http.Response, error) {
			trips.Add(1)
			return nil, errors.New(`net/http: invalid header field value for "User-Agent"`)
		})))
	err := updateFirstName(t.Context(), c)
	var te *apierrors.TransportError
	if !errors.As(err, &te) || te.Attempts != 1 || trips.Load() != 1 {
		t.Fatalf("err = %v after %d round trips, want a TransportError after 1 attempt", err, trips.Load())
	}
	if !strings.Contains(err.Error(), "invalid header field value") {
		t.Fatalf("err = %v, want the cause kept", err)
	}
}

// A Retry-After too long for a time.Duration is longer than any cap: the
// call stops at once with a positive RetryAfter instead of retrying
// immediately on an overflowed negative wait.
func TestHugeRetryAfterFailsFast(t *testing.T) {
	t.Parallel()
	for _, header := range []string{"Retry-After-Ms", "Retry-After"} {
		t.Run(header, func(t *testing.T) {
			t.Parallel()
			srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set(header, "10000000000000")
				w.WriteHeader(http.StatusTooManyRequests)
			})
			c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
			err := updateFirstName(t.Context(), c)
			wait, ok := apierrors.RetryAfterOf(err)
			if !errors.Is(err, apierrors.ErrRateLimited) || !ok || wait < 24*time.Hour || srv.reqs.Load() != 1 {
				t.Fatalf("err = %v, RetryAfter = %v after %d requests; want one attempt and a huge positive wait", err, wait, srv.reqs.Load())
			}
		})
	}
}
