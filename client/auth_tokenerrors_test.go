package client

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// When the token cannot be had, no API request is sent: the call returns
// the *errors.TokenError.
func TestTokenUnavailableSendsNoAPIRequest(t *testing.T) {
	var apiReqs atomic.Int64
	api := func(w http.ResponseWriter, r *http.Request) {
		apiReqs.Add(1)
		writeJSON(w, userJSON)
	}
	check := func(t *testing.T, err error) *apierrors.TokenError {
		t.Helper()
		var te *apierrors.TokenError
		if !errors.As(err, &te) || !errors.Is(err, apierrors.ErrTokenUnavailable) {
			t.Fatalf("err %T %v, want *errors.TokenError", err, err)
		}
		if apiReqs.Load() != 0 {
			t.Fatalf("%d API requests sent without a token", apiReqs.Load())
		}
		return te
	}

	t.Run("token endpoint 503", func(t *testing.T) {
		apiReqs.Store(0)
		var tokenReqs atomic.Int64
		srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			tokenReqs.Add(1)
			w.WriteHeader(http.StatusServiceUnavailable)
		}, api)
		src, _ := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "us-east-1"})
		c := newTestClient(t, srv.URL, src, option.WithMaxRetries(1))
		te := check(t, updateUser(context.Background(), c))
		if te.StatusCode != http.StatusServiceUnavailable || !errors.Is(err503(te), apierrors.ErrServiceUnavailable) {
			t.Fatalf("TokenError status %d, cause %v", te.StatusCode, te.Err)
		}
		if tokenReqs.Load() != 2 {
			t.Fatalf("token requests %d, want 2 (one retry)", tokenReqs.Load())
		}
	})
	t.Run("token endpoint unreachable", func(t *testing.T) {
		apiReqs.Store(0)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		dead := "http://" + ln.Addr().String()
		_ = ln.Close()
		srv := newTestServer(t, nil, api)
		src, _ := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "us-east-1", BaseURL: dead,
			Options: []option.RequestOption{option.WithMaxRetries(0)}})
		c := newTestClient(t, srv.URL, src)
		te := check(t, updateUser(context.Background(), c))
		if !errors.Is(te, apierrors.ErrTransport) {
			t.Fatalf("cause %v, want a transport error", te.Err)
		}
	})
	t.Run("unusable 200", func(t *testing.T) {
		apiReqs.Store(0)
		srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, `{"jwt":"in-the-wrong-field"}`)
		}, api)
		src, _ := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "us-east-1"})
		c := newTestClient(t, srv.URL, src)
		te := check(t, updateUser(context.Background(), c))
		if te.StatusCode != 200 || !bytes.Contains(te.Body, []byte("in-the-wrong-field")) {
			t.Fatalf("status %d body %q", te.StatusCode, te.Body)
		}
		if strings.Contains(te.Error(), "in-the-wrong-field") {
			t.Fatalf("Error() holds the body: %s", te)
		}
	})
	t.Run("source error", func(t *testing.T) {
		apiReqs.Store(0)
		srv := newTestServer(t, nil, api)
		sealed := errors.New("vault sealed")
		c := newTestClient(t, srv.URL, TokenSourceFunc(func(context.Context) (Token, error) { return Token{}, sealed }))
		check(t, updateUser(context.Background(), c))
		if err := updateUser(context.Background(), c); !errors.Is(err, sealed) {
			t.Fatalf("err %v does not wrap the source's error", err)
		}
	})
	t.Run("empty token", func(t *testing.T) {
		apiReqs.Store(0)
		srv := newTestServer(t, nil, api)
		c := newTestClient(t, srv.URL, TokenSourceFunc(func(context.Context) (Token, error) { return Token{Value: " \n"}, nil }))
		check(t, updateUser(context.Background(), c))
	})
	t.Run("token with a newline inside", func(t *testing.T) {
		apiReqs.Store(0)
		srv := newTestServer(t, nil, api)
		c := newTestClient(t, srv.URL, TokenSourceFunc(func(context.Context) (Token, error) { return Token{Value: "abc\ndef"}, nil }))
		te := check(t, updateUser(context.Background(), c))
		if strings.Contains(te.Error(), "abc") || strings.Contains(te.Error(), "def") {
			t.Fatalf("Error() quotes the token: %s", te)
		}
	})
	t.Run("token lost before a retry", func(t *testing.T) {
		apiReqs.Store(0)
		src := &countingSource{}
		var cp atomic.Pointer[Client]
		srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
			apiReqs.Add(1)
			// Meanwhile the token is rejected elsewhere and the source fails.
			tc := cp.Load().core.Tokens()
			cur, _ := tc.Get(r.Context())
			down := error(errors.New("token endpoint down"))
			src.err.Store(&down)
			tc.Invalidate(cur)
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		c := newTestClient(t, srv.URL, src)
		cp.Store(c)
		err := updateUser(context.Background(), c)
		var te *apierrors.TokenError
		if !errors.As(err, &te) {
			t.Fatalf("err %T %v, want *errors.TokenError (the retry had no token)", err, err)
		}
		if apiReqs.Load() != 1 {
			t.Fatalf("API requests %d, want 1: the retry must not go out without a token", apiReqs.Load())
		}
	})
}

func err503(te *apierrors.TokenError) error { return te.Err }

// One caller giving up does not fail the others waiting for the same fetch.
func TestCancelledCallerDoesNotFailOthers(t *testing.T) {
	var tokenReqs atomic.Int64
	entered := make(chan struct{})
	release := make(chan struct{})
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if tokenReqs.Add(1) == 1 {
			close(entered)
		}
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		writeJSON(w, `{"token":"shared-jwt","expires_in":3600}`)
	}, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, userJSON) })
	src, _ := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "us-east-1"})
	c := newTestClient(t, srv.URL, src)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan error, 1)
	go func() { cancelled <- updateUser(ctx, c) }()
	<-entered
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for range 5 {
		wg.Go(func() { errs <- updateUser(context.Background(), c) })
	}
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: %v, want context.Canceled", err)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("another caller failed: %v", err)
		}
	}
	if tokenReqs.Load() != 1 {
		t.Fatalf("token requests %d, want 1", tokenReqs.Load())
	}
}
