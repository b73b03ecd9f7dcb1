package core

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"
)

// The client's own transport bounds a stalled read with the default, which
// is at most a minute (issue: a call without a deadline never waits forever).
func TestPooledTransportBoundsStalls(t *testing.T) {
	if DefaultAttemptTimeout <= 0 || DefaultAttemptTimeout > time.Minute {
		t.Fatalf("DefaultAttemptTimeout %v, want (0, 60 s]", DefaultAttemptTimeout)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for name, tr := range map[string]*http.Transport{
		"NewPooledTransport":              NewPooledTransport(),
		"buildHTTPClient's own transport": buildHTTPClient(&Settings{}, nil).Transport.(attemptTransport).next.(*http.Transport),
	} {
		conn, err := tr.DialContext(context.Background(), "tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, plain := conn.(*net.TCPConn); plain {
			t.Errorf("%s dials plain TCP connections, with no bound on a stalled read", name)
		}
		_ = conn.Close()
	}
}

// A hung attempt, before the headers or in the body, times out and is
// retried like any timeout, charged to the budget as one.
func TestHungAttemptIsRetriedAsATimeout(t *testing.T) {
	for _, stallBody := range []bool{false, true} {
		t.Run(map[bool]string{false: "no answer", true: "stalled body"}[stallBody], func(t *testing.T) {
			testHungAttempt(t, stallBody)
		})
	}
}

func testHungAttempt(t *testing.T, stallBody bool) {
	release := make(chan struct{})
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		if hit == 1 {
			if stallBody {
				w.Header().Set("Content-Length", "100")
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write([]byte(`{"partial":`))
				w.(http.Flusher).Flush()
			}
			select { // never finishes (until the test ends)
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		rtJSON(w, 200, `{}`)
	})
	defer close(release)
	tr := newPooledTransport(200 * time.Millisecond) // DefaultAttemptTimeout, shortened
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
