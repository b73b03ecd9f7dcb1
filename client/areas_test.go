package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// areaServer answers each area by its path prefix with the handler the
// test sets, counting attempts per area.
type areaServer struct {
	*httptest.Server
	access, payments, cust atomic.Pointer[http.HandlerFunc]
	hits                   map[string]*atomic.Int32
}

func newAreaServer(t *testing.T) *areaServer {
	s := &areaServer{hits: map[string]*atomic.Int32{"access": {}, "payments": {}, "customer": {}, "other": {}}}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/payment-methods"):
			retryJSON(w, http.StatusOK, retryPMJSON)
		case strings.HasPrefix(r.URL.Path, "/customer"):
			retryJSON(w, http.StatusOK, `{"id":"a1","tenantId":"t1","addressLineOne":"1 George St"}`)
		default:
			retryJSON(w, http.StatusOK, `{"id":"user_1","email":"ada@example.com"}`)
		}
	})
	for _, p := range []*atomic.Pointer[http.HandlerFunc]{&s.access, &s.payments, &s.cust} {
		p.Store(&ok)
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var h *atomic.Pointer[http.HandlerFunc]
		switch {
		case strings.HasPrefix(r.URL.Path, "/auth/access-management"):
			s.hits["access"].Add(1)
			h = &s.access
		case strings.HasPrefix(r.URL.Path, "/payment-methods"):
			s.hits["payments"].Add(1)
			h = &s.payments
		case strings.HasPrefix(r.URL.Path, "/customer"):
			s.hits["customer"].Add(1)
			h = &s.cust
		default:
			s.hits["other"].Add(1)
			ok(w, r)
			return
		}
		(*h.Load())(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func set(p *atomic.Pointer[http.HandlerFunc], f http.HandlerFunc) { p.Store(&f) }

func throttle429(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Retry-After", "1")
	retryJSON(w, http.StatusTooManyRequests, `{"title":"Too Many Requests","status":429}`)
}

func upsertAddress(ctx context.Context, c *client.Client) error {
	_, err := c.Customer.UpsertMemberAddress(ctx, "5d2f3a9e-0c41-4f6b-8a77-1b2c3d4e5f60", customer.UpsertMemberAddressParams{
		AddressLineOne: "1 George St", State: "NSW", Suburb: "Sydney", Postcode: "2000", Country: "AU"})
	return err
}

func updateAda(ctx context.Context, c *client.Client) error {
	_, err := c.AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	return err
}

// A throttle of the access provider engages access management's pacer
// only: right after it, payments, customer and Execute calls of other areas
// leave at once, while access management's next call waits for its slot
// (its Retry-After: 1 s away) and an Execute under its prefix does too.
func TestThrottleOfOneAreaNeverDelaysAnother(t *testing.T) {
	srv := newAreaServer(t)
	set(&srv.access, throttle429)
	c := newRetryClient(t, srv.URL, option.WithMaxRetries(0))
	if err := updateAda(context.Background(), c); !errors.Is(err, apierrors.ErrRateLimited) {
		t.Fatalf("access management: %v, want its 429", err)
	}
	start := time.Now()
	if _, err := updatePM(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if err := upsertAddress(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if err := c.Execute(context.Background(), http.MethodGet, "/health", nil, nil); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 500*time.Millisecond {
		t.Fatalf("payments, customer and other calls took %v after access management's 429, want no wait", el)
	}

	// Access management's own calls are paced, Execute's included: a call
	// whose deadline ends before the next slot is refused unsent, rate
	// limited, and RetryAfterOf says when the slot comes.
	set(&srv.access, func(w http.ResponseWriter, r *http.Request) {
		retryJSON(w, http.StatusOK, `{"id":"user_1","email":"a@b.c"}`)
	})
	before := srv.hits["access"].Load()
	for name, call := range map[string]func(context.Context) error{
		"UpdateUser": func(ctx context.Context) error { return updateAda(ctx, c) },
		"Execute": func(ctx context.Context) error {
			return c.Execute(ctx, http.MethodGet, "/auth/access-management/users", nil, nil)
		},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := call(ctx)
		cancel()
		wait, ok := apierrors.RetryAfterOf(err)
		if !errors.Is(err, apierrors.ErrRateLimited) || !errors.Is(err, context.DeadlineExceeded) || !ok || wait <= 100*time.Millisecond || wait > time.Second {
			t.Fatalf("%s before access management's next slot: %v (RetryAfterOf %v, %v); want a refusal naming the slot", name, err, wait, ok)
		}
	}
	if got := srv.hits["access"].Load(); got != before {
		t.Fatalf("%d refused calls reached the access provider", got-before)
	}
}

// An outage of the customer backend spends customer's retry budget only:
// access management keeps retrying its transient failures, and customer's
// calls, once its budget is spent, make one attempt each (admission control
// off: it would refuse customer's calls once 10 had failed).
func TestOutageOfOneAreaSpendsOnlyItsBudget(t *testing.T) {
	srv := newAreaServer(t)
	set(&srv.cust, func(w http.ResponseWriter, _ *http.Request) {
		retryJSON(w, http.StatusServiceUnavailable, `{"code":"UNAVAILABLE","message":"down"}`)
	})
	c := newRetryClient(t, srv.URL, option.WithRetryBudget(option.RetryBudget{Capacity: 30}), option.WithoutAdmissionControl())
	for range 10 {
		if err := upsertAddress(context.Background(), c); !errors.Is(err, apierrors.ErrServiceUnavailable) {
			t.Fatalf("customer: %v, want its 503", err)
		}
	}
	if got := srv.hits["customer"].Load(); got != 10+3 {
		t.Fatalf("%d customer attempts for 10 calls, want 13: 3 retries, then its budget of 30 is spent", got)
	}
	var failed atomic.Bool
	set(&srv.access, func(w http.ResponseWriter, r *http.Request) {
		if failed.CompareAndSwap(false, true) {
			retryJSON(w, http.StatusServiceUnavailable, `{"title":"Service Unavailable","status":503}`)
			return
		}
		retryJSON(w, http.StatusOK, `{"id":"user_1","email":"ada@example.com"}`)
	})
	if err := updateAda(context.Background(), c); err != nil {
		t.Fatalf("access management after customer's outage: %v, want its transient 503 retried", err)
	}
}

// A limiter given for access management paces its calls only; given
// without an area, every area's.
func TestRateLimiterForOneArea(t *testing.T) {
	srv := newAreaServer(t)
	lim := &countingLimiter{}
	c := newRetryClient(t, srv.URL, option.WithRateLimiter(lim, option.AreaAccessMgmt))
	for range 3 {
		if err := updateAda(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		if err := upsertAddress(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	if lim.waits.Load() != 3 {
		t.Fatalf("%d waits for 3 access and 3 customer calls, want 3", lim.waits.Load())
	}
	all := &countingLimiter{}
	c = newRetryClient(t, srv.URL, option.WithRateLimiter(all))
	_ = updateAda(context.Background(), c)
	_ = upsertAddress(context.Background(), c)
	_, _ = updatePM(context.Background(), c)
	if all.waits.Load() != 3 {
		t.Fatalf("%d waits for 3 calls of 3 areas, want 3", all.waits.Load())
	}
}

// A refusal of a limiter whose error knows its delay (as fleet's WaitError)
// reaches the caller as rate limited, with RetryAfterOf its delay.
func TestRateLimiterRefusalCarriesItsDelay(t *testing.T) {
	srv := newAreaServer(t)
	c := newRetryClient(t, srv.URL, option.WithRateLimiter(&countingLimiter{refuse: 3 * time.Second}))
	err := updateAda(context.Background(), c)
	var te *apierrors.TransportError
	if !errors.As(err, &te) || !errors.Is(err, apierrors.ErrRateLimited) {
		t.Fatalf("err = %v, want a TransportError matching ErrRateLimited", err)
	}
	if wait, ok := apierrors.RetryAfterOf(err); !ok || wait != 3*time.Second {
		t.Fatalf("RetryAfterOf = %v, %v; want the limiter's 3s", wait, ok)
	}
}

// A limiter's invalid-input error (a misconfigured limiter) is no rate
// limit: the call's error matches ErrInvalidInput, not ErrRateLimited.
func TestRateLimiterInvalidInputIsNoRateLimit(t *testing.T) {
	srv := newAreaServer(t)
	invalid := &apierrors.ValidationError{Operation: "limiter", Fields: []apierrors.FieldError{{Field: "rate", Message: "is 0"}}}
	c := newRetryClient(t, srv.URL, option.WithRateLimiter(&countingLimiter{fail: invalid}))
	err := updateAda(context.Background(), c)
	if !errors.Is(err, apierrors.ErrInvalidInput) || errors.Is(err, apierrors.ErrRateLimited) {
		t.Fatalf("err = %v; want ErrInvalidInput, not ErrRateLimited", err)
	}
}

// countingLimiter counts its waits; with refuse set it refuses each with a
// delayError, with fail set with fail.
type countingLimiter struct {
	waits  atomic.Int32
	refuse time.Duration
	fail   error
}

func (l *countingLimiter) Wait(context.Context) error {
	l.waits.Add(1)
	switch {
	case l.fail != nil:
		return l.fail
	case l.refuse > 0:
		return delayError(l.refuse)
	}
	return nil
}

// delayError is a limiter's refusal that knows when to try again.
type delayError time.Duration

func (e delayError) Error() string             { return "next turn in " + time.Duration(e).String() }
func (e delayError) RetryAfter() time.Duration { return time.Duration(e) }

var _ apierrors.RetryAfterError = delayError(0)
