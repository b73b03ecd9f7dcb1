package client_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// The client's connection pool is its own: CloseIdleConnections and giving
// up close only the pool the client built, never a user's transport.

func TestCloseIdleConnectionsClosesOnlyTheClientsOwnPool(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
	if err := updateFirstName(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	// net/http returns a connection to the pool on its own goroutine after
	// the body is read: close idle connections until that has happened.
	deadline := time.Now().Add(10 * time.Second) // polled: a generous bound costs nothing when it passes
	for srv.closed.Load() != 1 && time.Now().Before(deadline) {
		c.CloseIdleConnections()
		time.Sleep(time.Millisecond)
	}
	if srv.closed.Load() != 1 {
		t.Fatalf("closed connections = %d, want 1", srv.closed.Load())
	}

	// With the user's transport, the user's pool is left alone.
	user := newCountingServer(t, userJSON)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c2 := newClient(t, option.WithBaseURL(user.URL), option.WithTokenSource(nil), option.WithTransport(tr))
	if err := updateFirstName(t.Context(), c2); err != nil {
		t.Fatal(err)
	}
	c2.CloseIdleConnections()
	time.Sleep(20 * time.Millisecond)
	if n := user.closed.Load(); n != 0 {
		t.Fatalf("the user's pool lost %d connections", n)
	}
}

// idleRecorder is a user transport that records CloseIdleConnections.
type idleRecorder struct {
	*http.Transport
	closes atomic.Int32
}

func (r *idleRecorder) CloseIdleConnections() { r.closes.Add(1); r.Transport.CloseIdleConnections() }

func TestPublicGivingUpKeepsUserPool(t *testing.T) {
	srv := newRetryServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close() // no response at all
		}
	})
	for _, viaHTTPClient := range []bool{false, true} {
		rec := &idleRecorder{Transport: &http.Transport{}}
		opt := option.WithTransport(rec)
		if viaHTTPClient {
			opt = option.WithHTTPClient(&http.Client{Transport: rec})
		}
		c := newRetryClient(t, srv.URL, opt)
		_, err := updatePM(context.Background(), c)
		if !errors.Is(err, apierrors.ErrTransport) || attemptsOf(t, err) != 4 {
			t.Fatalf("err = %v, want a TransportError after 4 attempts", err)
		}
		if n := rec.closes.Load(); n != 0 {
			t.Fatalf("viaHTTPClient=%v: the SDK closed the user's idle connections %d times", viaHTTPClient, n)
		}
		rec.Transport.CloseIdleConnections()
	}
}
