package client

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// Figure 7a: a user's token source that hangs once, ignoring its context,
// fails the calls waiting on that fetch at its bound (30s; shortened here)
// and nothing more: a later call starts a new fetch and succeeds.
func TestHungTokenSourceDoesNotWedgeTheClient(t *testing.T) {
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer fresh" {
			problem401(w)
			return
		}
		writeJSON(w, userJSON)
	})
	release, returned := make(chan struct{}), make(chan struct{})
	var calls atomic.Int64
	src := TokenSourceFunc(func(context.Context) (Token, error) {
		if calls.Add(1) == 1 {
			defer close(returned)
			<-release // a read on a dead connection
			return Token{Value: "late"}, nil
		}
		return Token{Value: "fresh"}, nil
	})
	c := newTestClient(t, srv.URL, src)
	c.core.Tokens().FetchTimeout = 300 * time.Millisecond // the 30s bound, shortened
	t.Cleanup(func() {
		close(release)
		<-returned
	})

	start := time.Now()
	err := updateUser(context.Background(), c)
	if !errors.Is(err, apierrors.ErrTokenUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call during the hung fetch: %v, want a TokenError at the fetch bound", err)
	}
	failedAfter := time.Since(start)
	if err := updateUser(context.Background(), c); err != nil {
		t.Fatalf("call after the bound: %v, want success from a new fetch", err)
	}
	t.Logf("bound 300ms: the call on the hung fetch failed after %v; the next succeeded %v after the first began", failedAfter, time.Since(start))
	if n := calls.Load(); n != 2 {
		t.Fatalf("token source called %d times, want 2", n)
	}
}

// Figure 7c: the token endpoint answers 429 (503) with a Retry-After the
// caller's deadline cannot wait out: the call returns that answer at
// once, typed as an API call's would be, while a caller without deadline
// gets the token of the retry.
func TestTokenEndpointRetryAfterPastTheDeadlineReturnsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		status     int
		retryAfter int
		kind       error
	}{
		{http.StatusTooManyRequests, 10, apierrors.ErrRateLimited},
		{http.StatusServiceUnavailable, 3, apierrors.ErrServiceUnavailable},
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			t.Parallel()
			var tokenReqs atomic.Int64
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				if tokenReqs.Add(1) == 1 {
					w.Header().Set("Retry-After", strconv.Itoa(tc.retryAfter))
					w.Header().Set("Content-Type", "application/problem+json")
					w.WriteHeader(tc.status)
					_, _ = w.Write([]byte(`{"title":"slow down","detail":"echoing ` + r.Header.Get("X-Amz-Security-Token") + `"}`))
					return
				}
				writeJSON(w, `{"accessToken":"jwt-after-wait","expiresIn":3600}`)
			}, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, userJSON) })
			c := newClientOpts(t, srv.URL, optionSigV4())
			patient := make(chan error, 1)
			go func() { patient <- updateUser(context.Background(), c) }()
			for tokenReqs.Load() == 0 {
				time.Sleep(time.Millisecond)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
			defer cancel()
			start := time.Now()
			err := updateUser(ctx, c)
			took := time.Since(start)
			if !errors.Is(err, tc.kind) || !errors.Is(err, apierrors.ErrTokenUnavailable) {
				t.Fatalf("call with 1.5s left: %v, want %v from the token endpoint", err, tc.kind)
			}
			if d, ok := apierrors.RetryAfterOf(err); !ok || d != time.Duration(tc.retryAfter)*time.Second {
				t.Fatalf("RetryAfterOf = %v, %v; want %ds", d, ok, tc.retryAfter)
			}
			te, _ := errors.AsType[*apierrors.TokenError](err)
			if te == nil || te.StatusCode != tc.status || te.Operation != "accessmgmt.UpdateUser" {
				t.Fatalf("error %#v, want a TokenError with status %d naming the call", err, tc.status)
			}
			t.Logf("status %d, Retry-After %ds, 1.5s left: returned in %v", tc.status, tc.retryAfter, took)
			if took > 500*time.Millisecond {
				t.Fatalf("returned after %v, want under 0.5s", took)
			}
			assertNoSecret(t, err.Error())
			if err := <-patient; err != nil {
				t.Fatalf("caller without deadline: %v, want the token of the retry", err)
			}
		})
	}
}

// optionSigV4 signs the token requests with the test credentials.
func optionSigV4() option.RequestOption { return option.WithSigV4(testCreds(), "ap-southeast-2") }

// assertNoSecret fails when text holds a test credential.
func assertNoSecret(t *testing.T, text string) {
	t.Helper()
	for _, secret := range []string{testSecretKey, testSessionToken, "Signature="} {
		if strings.Contains(text, secret) {
			t.Fatalf("%q holds a secret", text)
		}
	}
}
