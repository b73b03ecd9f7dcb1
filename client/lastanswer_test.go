package client_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// A call that ends without a final response after the platform throttled
// it still answers errors.Is(err, ErrRateLimited) and errors.As(&apiErr).
func TestThrottledCallEndingWithoutAResponseKeepsTheAnswer(t *testing.T) {
	t.Parallel()
	throttle := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After-Ms", "600")
		w.Header().Set("X-Request-Id", "req-429")
		w.WriteHeader(http.StatusTooManyRequests)
	}

	t.Run("cancelled Retry-After wait", func(t *testing.T) {
		t.Parallel()
		srv := newCountingServer(t, throttle)
		c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(100*time.Millisecond, cancel)
		err = updateFirstName(ctx, c)
		var apiErr *apierrors.Error
		if !errors.Is(err, apierrors.ErrTransport) || !errors.Is(err, context.Canceled) || !errors.Is(err, apierrors.ErrRateLimited) ||
			!errors.As(err, &apiErr) || apiErr.RequestID != "req-429" || apiErr.RetryAfter != 600*time.Millisecond {
			t.Fatalf("err = %v (%#v), want a transport error that still reaches the 429", err, apiErr)
		}
	})

	t.Run("token refresh failed after a 429", func(t *testing.T) {
		t.Parallel()
		srv := newCountingServer(t, throttle)
		var fetches atomic.Int32
		tokens := client.TokenSourceFunc(func(context.Context) (client.Token, error) {
			if fetches.Add(1) == 1 {
				// Expires during the Retry-After wait: the retry must fetch.
				return client.Token{Value: "short-lived-token", Expiry: time.Now().Add(400 * time.Millisecond)}, nil
			}
			return client.Token{}, errors.New("token service down")
		})
		c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(tokens))
		if err != nil {
			t.Fatal(err)
		}
		err = updateFirstName(t.Context(), c)
		var apiErr *apierrors.Error
		if !errors.Is(err, apierrors.ErrTokenUnavailable) || !errors.Is(err, apierrors.ErrRateLimited) ||
			!errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests || apiErr.RequestID != "req-429" {
			t.Fatalf("err = %v, want a token error that still reaches the 429", err)
		}
		if n := srv.reqs.Load(); n != 1 {
			t.Fatalf("%d API requests, want 1 (no request without a token)", n)
		}
	})
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
			c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
			if err != nil {
				t.Fatal(err)
			}
			err = updateFirstName(t.Context(), c)
			wait, ok := apierrors.RetryAfterOf(err)
			if !errors.Is(err, apierrors.ErrRateLimited) || !ok || wait < 24*time.Hour || srv.reqs.Load() != 1 {
				t.Fatalf("err = %v, RetryAfter = %v after %d requests; want one attempt and a huge positive wait", err, wait, srv.reqs.Load())
			}
		})
	}
}
