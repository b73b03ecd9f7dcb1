package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/observe"
	"github.com/memberplatform/memberplatform-go/option"
)

// recordingLimiter counts its waits.
type recordingLimiter struct{ waits atomic.Int32 }

func (l *recordingLimiter) Wait(context.Context) error {
	l.waits.Add(1)
	return nil
}

// stateObserver hands the client's load-control state to the test.
type stateObserver struct {
	observe.Nop
	state *observe.State
}

func (o *stateObserver) ObserveState(s *observe.State) { o.state = s }

// The SigV4 token call goes through a pipeline of its own, built from the
// client's settings: it uses the client's token area (the same budget and
// limiter, not copies), and no other area's. Its retries cannot empty
// access management's budget, and each limiter paces only its areas.
func TestTokenCallHasTheTokenAreasBudgetAndLimiter(t *testing.T) {
	var mu sync.Mutex
	tokenOK := false
	var tokenHits, apiHits atomic.Int32
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		tokenHits.Add(1)
		mu.Lock()
		ok := tokenOK
		mu.Unlock()
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		writeJSON(w, `{"access_token":"jwt-1"}`)
	}, func(w http.ResponseWriter, r *http.Request) {
		apiHits.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	tokenLim, accessLim := &recordingLimiter{}, &recordingLimiter{}
	obs := &stateObserver{}
	c := newClientOpts(t, srv.URL, option.WithSigV4(testCreds(), "ap-southeast-2"),
		option.WithRetryBudget(option.RetryBudget{Capacity: 20, ErrorCost: 10}),
		option.WithRateLimiter(tokenLim, option.AreaToken), option.WithRateLimiter(accessLim, option.AreaAccessMgmt),
		option.WithObserver(obs))

	// The token call spends the token area's 20 tokens on two retries,
	// then its budget stops it: the client's token budget, not a copy.
	err := updateUser(context.Background(), c)
	var te *apierrors.TokenError
	if !errors.As(err, &te) || !errors.Is(err, apierrors.ErrRetryBudgetExhausted) || tokenHits.Load() != 3 {
		t.Fatalf("err = %v after %d token attempts; want a TokenError stopped by the budget after 3", err, tokenHits.Load())
	}
	if left, _ := obs.state.RetryBudgetOf(option.AreaToken); left != 0 {
		t.Fatalf("the client's token budget has %d tokens left after the token call's two retries, want 0", left)
	}
	if tokenLim.waits.Load() != 3 || accessLim.waits.Load() != 0 {
		t.Fatalf("limiter waits: token %d, access %d; want 3 and 0", tokenLim.waits.Load(), accessLim.waits.Load())
	}

	// The API call has access management's budget, full: two retries.
	mu.Lock()
	tokenOK = true
	mu.Unlock()
	err = updateUser(context.Background(), c)
	if !errors.Is(err, apierrors.ErrRetryBudgetExhausted) || apiHits.Load() != 3 {
		t.Fatalf("err = %v after %d API attempts; want access management's own budget to allow 2 retries", err, apiHits.Load())
	}
	if tokenLim.waits.Load() != 4 || accessLim.waits.Load() != 3 {
		t.Fatalf("limiter waits: token %d, access %d; want 4 and 3", tokenLim.waits.Load(), accessLim.waits.Load())
	}
}

func TestLoadOptionsRefusedPerCall(t *testing.T) {
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a call with a client-wide load option was sent")
	})
	c := newTestClient(t, srv.URL, nil)
	for name, o := range map[string]option.RequestOption{
		"WithRetryBudget":          option.WithRetryBudget(option.RetryBudget{Disabled: true}),
		"WithRateLimiter":          option.WithRateLimiter(&recordingLimiter{}),
		"WithAdaptiveRateLimit":    option.WithAdaptiveRateLimit(),
		"WithoutAdaptiveRateLimit": option.WithoutAdaptiveRateLimit(),
	} {
		err := updateUser(context.Background(), c, o)
		var ve *apierrors.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), "client.New") {
			t.Errorf("%s per call: err = %v, want a ValidationError pointing to client.New", name, err)
		}
	}
}

func TestLoadOptionsValidation(t *testing.T) {
	for name, o := range map[string]option.RequestOption{
		"nil limiter":     option.WithRateLimiter(nil),
		"negative budget": option.WithRetryBudget(option.RetryBudget{ErrorCost: -1}),
	} {
		if _, err := New(option.WithBaseURL("https://api.example.com"), o); !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Errorf("%s: New = %v, want ErrInvalidInput", name, err)
		}
	}
}

// A throttle of access management engages its pacer, not the token
// area's: the SigV4 token call a 401 asks for right after leaves at once.
// A throttle of the token endpoint paces the next token call.
func TestTokenCallIsPacedByItsOwnArea(t *testing.T) {
	var mu sync.Mutex
	var tokenAt []time.Time
	var rejectedAt time.Time
	var apiHits atomic.Int32
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		tokenAt = append(tokenAt, time.Now())
		n := len(tokenAt)
		mu.Unlock()
		if n == 3 { // engages the token area's pacer at one a second
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		writeJSON(w, fmt.Sprintf(`{"access_token":"jwt-%d"}`, n)) // a new token, so the 401 is resent
	}, func(w http.ResponseWriter, r *http.Request) {
		switch apiHits.Add(1) {
		case 1: // engages access management's pacer at one attempt a second
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2, 4, 5: // rejects the token: the client fetches another and resends
			mu.Lock()
			rejectedAt = time.Now()
			mu.Unlock()
			w.WriteHeader(http.StatusUnauthorized)
		default:
			writeJSON(w, `{"id":"user_1","email":"ada@example.com"}`)
		}
	})
	c := newClientOpts(t, srv.URL, option.WithSigV4(testCreds(), "ap-southeast-2"), option.WithMaxRetries(0))
	c.core.Tokens().RejectedGrace = 0 // the 401 of the fourth attempt asks for a token again, though the last was fetched for a 401
	if err := updateUser(context.Background(), c); !errors.Is(err, apierrors.ErrRateLimited) {
		t.Fatalf("first call: %v, want the 429", err)
	}
	if err := updateUser(context.Background(), c); err != nil {
		t.Fatalf("second call: %v, want success after the 401 and a fresh token", err)
	}
	mu.Lock()
	if len(tokenAt) != 2 || apiHits.Load() != 3 {
		t.Fatalf("%d token calls, %d API attempts; want 2 and 3", len(tokenAt), apiHits.Load())
	}
	if gap := tokenAt[1].Sub(rejectedAt); gap > 500*time.Millisecond {
		t.Fatalf("the token call left %v after the 401, want at once: access management's throttle is not the token endpoint's", gap)
	}
	mu.Unlock()

	// The token endpoint throttles the third fetch (the rejected token
	// stays the cache's); the fourth, for the next 401, waits for the token
	// area's next slot, about a second later.
	err := updateUser(context.Background(), c) // 401, then the fetch is throttled
	if !errors.Is(err, apierrors.ErrTokenUnavailable) || !errors.Is(err, apierrors.ErrRateLimited) {
		t.Fatalf("third call: %v, want the throttled token fetch", err)
	}
	if err := updateUser(context.Background(), c); err != nil {
		t.Fatalf("fourth call: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(tokenAt) != 4 {
		t.Fatalf("%d token calls, want 4", len(tokenAt))
	}
	// A lower bound: a busy machine only makes it later.
	if gap := tokenAt[3].Sub(tokenAt[2]); gap < 500*time.Millisecond {
		t.Fatalf("the token call after the token endpoint's 429 left %v after it, want it paced (≥ 500ms)", gap)
	}
}
