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
	"github.com/memberplatform/memberplatform-go/option"
)

// recordingLimiter counts its waits.
type recordingLimiter struct{ waits atomic.Int32 }

func (l *recordingLimiter) Wait(context.Context) error {
	l.waits.Add(1)
	return nil
}

// The SigV4 token call goes through a pipeline of its own, built from the
// client's settings: it must share the client's budget and limiters, not
// get copies.
func TestTokenCallSharesBudgetAndLimiters(t *testing.T) {
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
	lim := &recordingLimiter{}
	c := newClientOpts(t, srv.URL, option.WithSigV4(testCreds(), "ap-southeast-2"),
		option.WithRetryBudget(option.RetryBudget{Capacity: 20, ErrorCost: 10}),
		option.WithRateLimiter(lim), option.WithAdaptiveRateLimit())

	// The token call spends the 20 tokens on two retries, then the budget
	// stops it: the client's budget, not a default one of 500.
	err := updateUser(context.Background(), c)
	var te *apierrors.TokenError
	if !errors.As(err, &te) || !errors.Is(err, apierrors.ErrRetryBudgetExhausted) || tokenHits.Load() != 3 {
		t.Fatalf("err = %v after %d token attempts; want a TokenError stopped by the budget after 3", err, tokenHits.Load())
	}
	if lim.waits.Load() != 3 {
		t.Fatalf("%d limiter waits for 3 token attempts, want 3", lim.waits.Load())
	}

	// The API call finds the same budget empty: the token call's healthy
	// answer put 1 back, not enough for a retry.
	mu.Lock()
	tokenOK = true
	mu.Unlock()
	err = updateUser(context.Background(), c)
	if !errors.Is(err, apierrors.ErrRetryBudgetExhausted) || apiHits.Load() != 1 {
		t.Fatalf("err = %v after %d API attempts; want the shared, empty budget to stop it after 1", err, apiHits.Load())
	}
	if want := int32(3 + 1 + 1); lim.waits.Load() != want {
		t.Fatalf("%d limiter waits, want %d (every token and API attempt)", lim.waits.Load(), want)
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

// Once a throttle engages the adaptive rate limit (on by default), the
// SigV4 token call waits its turn on it too: the token pipeline shares the
// client's limiter.
func TestTokenCallWaitsOnTheAdaptiveRateLimit(t *testing.T) {
	var mu sync.Mutex
	var tokenAt []time.Time
	var rejectedAt time.Time
	var apiHits atomic.Int32
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		tokenAt = append(tokenAt, time.Now())
		n := len(tokenAt)
		mu.Unlock()
		writeJSON(w, fmt.Sprintf(`{"access_token":"jwt-%d"}`, n)) // a new token, so the 401 is resent
	}, func(w http.ResponseWriter, r *http.Request) {
		switch apiHits.Add(1) {
		case 1: // engages the limiter at one attempt a second (1/Retry-After)
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2: // drops the token: the client fetches another and resends
			mu.Lock()
			rejectedAt = time.Now()
			mu.Unlock()
			w.WriteHeader(http.StatusUnauthorized)
		default:
			writeJSON(w, `{"id":"user_1","email":"ada@example.com"}`)
		}
	})
	c := newClientOpts(t, srv.URL, option.WithSigV4(testCreds(), "ap-southeast-2"), option.WithMaxRetries(0))
	if err := updateUser(context.Background(), c); !errors.Is(err, apierrors.ErrRateLimited) {
		t.Fatalf("first call: %v, want the 429", err)
	}
	if err := updateUser(context.Background(), c); err != nil {
		t.Fatalf("second call: %v, want success after the 401 and a fresh token", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(tokenAt) != 2 || apiHits.Load() != 3 {
		t.Fatalf("%d token calls, %d API attempts; want 2 and 3", len(tokenAt), apiHits.Load())
	}
	// The fresh token's request waited for its slot, about a second after
	// the 401's attempt took the previous one; unpaced it would leave at
	// once. (A lower bound: a busy machine only makes it later.)
	if gap := tokenAt[1].Sub(rejectedAt); gap < 500*time.Millisecond {
		t.Fatalf("the token call left %v after the 401, want it paced (≥ 500ms)", gap)
	}
}
