package core

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// The client's own transport bounds the wait for response headers, so a
// call without a deadline never hangs on a server that accepts and never
// answers.
func TestPooledTransportBoundsTheWaitForHeaders(t *testing.T) {
	if got := NewPooledTransport().ResponseHeaderTimeout; got != DefaultAttemptTimeout || got <= 0 || got > time.Minute {
		t.Fatalf("ResponseHeaderTimeout %v, want DefaultAttemptTimeout (%v), at most 60 s", got, DefaultAttemptTimeout)
	}
	if hc := buildHTTPClient(&Settings{}, nil); hc.Transport.(attemptTransport).next.(*http.Transport).ResponseHeaderTimeout != DefaultAttemptTimeout {
		t.Fatal("the fallback transport of buildHTTPClient must bound the wait for headers too")
	}
}

// A hung attempt times out and is retried like any timeout, charged to the
// budget as one.
func TestHungAttemptIsRetriedAsATimeout(t *testing.T) {
	release := make(chan struct{})
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		if hit == 1 {
			select { // accepts, never answers (until the test ends)
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		rtJSON(w, 200, `{}`)
	})
	defer close(release)
	tr := NewPooledTransport()
	tr.ResponseHeaderTimeout = 100 * time.Millisecond // DefaultAttemptTimeout, shortened
	defer tr.CloseIdleConnections()
	var spent []int
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		s.Transport = tr
		s.Retry.BaseDelay = time.Millisecond
		s.Retry.OnRetry = func(int, time.Duration) { spent = append(spent, s.RetryBudget.Tokens()) }
	})
	if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil || srv.hits() != 2 {
		t.Fatalf("err = %v after %d attempts; want the hung attempt retried", err, srv.hits())
	}
	if want := 500 - DefaultBudgetConfig().TimeoutCost; len(spent) != 1 || spent[0] != want {
		t.Fatalf("tokens at the retry %v, want [%d]: a timeout's cost", spent, want)
	}
}
