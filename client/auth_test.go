package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

func TestNoTokenSourceSendsNoAuthorization(t *testing.T) {
	var rec recorder
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		_, has := r.Header["Authorization"]
		rec.add(fmt.Sprint(has))
		writeJSON(w, userJSON)
	})
	c := newTestClient(t, srv.URL, nil)
	if err := updateUser(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if got := rec.get(); !slices.Equal(got, []string{"false"}) {
		t.Fatalf("Authorization present: %v", got)
	}
}

func TestStaticAndFuncSourcesSendBearer(t *testing.T) {
	var rec recorder
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		rec.add(r.Header.Get("Authorization"))
		writeJSON(w, userJSON)
	})
	var calls atomic.Int64
	fn := TokenSourceFunc(func(context.Context) (Token, error) {
		calls.Add(1)
		return Token{Value: "from-func"}, nil
	})
	for _, ts := range []TokenSource{StaticToken("static-jwt"), fn} {
		c := newTestClient(t, srv.URL, ts)
		for range 2 {
			if err := updateUser(context.Background(), c); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []string{"Bearer static-jwt", "Bearer static-jwt", "Bearer from-func", "Bearer from-func"}
	if got := rec.get(); !slices.Equal(got, want) {
		t.Fatalf("Authorization headers %v, want %v", got, want)
	}
	if calls.Load() != 1 {
		t.Fatalf("func source called %d times, want 1 (cached, unknown expiry)", calls.Load())
	}
}

// 1,000 goroutines calling the API on a cold cache cause exactly one token
// request, counted by the token server.
func TestColdCacheThousandGoroutinesOneTokenRequest(t *testing.T) {
	v := sigV4Verifier{secret: testSecretKey, region: "ap-southeast-2", service: "execute-api", sessionToken: testSessionToken}
	var tokenReqs, apiReqs atomic.Int64
	release := make(chan struct{})
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		tokenReqs.Add(1)
		select { // hold the fetch open while the callers pile up
		case <-release:
		case <-time.After(10 * time.Second):
		}
		body, _ := io.ReadAll(r.Body)
		if _, err := v.verify(r, body); err != nil {
			t.Errorf("token request: %v", err)
		}
		writeJSON(w, `{"accessToken":"jwt-shared","expiresIn":3600}`)
	}, func(w http.ResponseWriter, r *http.Request) {
		apiReqs.Add(1)
		if got := r.Header.Get("Authorization"); got != "Bearer jwt-shared" {
			t.Errorf("API Authorization %q", got)
		}
		writeJSON(w, userJSON)
	})
	src, err := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "ap-southeast-2"})
	if err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, srv.URL, src)

	const n = 1000
	var wg, started sync.WaitGroup
	started.Add(n)
	var failed atomic.Int64
	for range n {
		wg.Go(func() {
			started.Done()
			if err := updateUser(context.Background(), c); err != nil {
				failed.Add(1)
				t.Errorf("call: %v", err)
			}
		})
	}
	started.Wait()
	close(release)
	wg.Wait()
	t.Logf("%d goroutines: %d token request(s), %d API requests", n, tokenReqs.Load(), apiReqs.Load())
	if got := tokenReqs.Load(); got != 1 {
		t.Fatalf("token server saw %d requests, want exactly 1", got)
	}
	if apiReqs.Load() != n || failed.Load() != 0 {
		t.Fatalf("API requests %d, failures %d", apiReqs.Load(), failed.Load())
	}
}

func TestUnauthorizedRefreshesAndResendsOnce(t *testing.T) {
	var rec recorder
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("Authorization")
		rec.add(h)
		if h == "Bearer tok-1" {
			problem401(w)
			return
		}
		writeJSON(w, userJSON)
	})
	src := &countingSource{}
	c := newTestClient(t, srv.URL, src)
	if err := updateUser(context.Background(), c); err != nil {
		t.Fatalf("401 then fresh token: %v", err)
	}
	if got, want := rec.get(), []string{"Bearer tok-1", "Bearer tok-2"}; !slices.Equal(got, want) {
		t.Fatalf("API saw %v, want %v", got, want)
	}
	if src.n.Load() != 2 {
		t.Fatalf("token fetches %d, want 2", src.n.Load())
	}
	// The fresh token is cached for the next call.
	if err := updateUser(context.Background(), c); err != nil || src.n.Load() != 2 {
		t.Fatalf("next call: err %v, fetches %d", err, src.n.Load())
	}
}

func TestUnauthorizedTwiceIsTypedError(t *testing.T) {
	var rec recorder
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		rec.add(r.Header.Get("Authorization"))
		problem401(w)
	})
	src := &countingSource{}
	c := newTestClient(t, srv.URL, src)
	err := updateUser(context.Background(), c)
	if !errors.Is(err, apierrors.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	var ae *apierrors.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusUnauthorized {
		t.Fatalf("err %T %v, want *errors.Error with status 401", err, err)
	}
	if got, want := rec.get(), []string{"Bearer tok-1", "Bearer tok-2"}; !slices.Equal(got, want) {
		t.Fatalf("API saw %v, want exactly one resend with a fresh token %v", got, want)
	}
	if strings.Contains(err.Error(), "tok-") {
		t.Fatalf("error text holds the token: %s", err)
	}
}

// A retry attaches the token refreshed during its backoff; a 401 then drops
// that token (the one actually rejected), not the first attempt's.
func TestUnauthorizedAfterRetryDropsTheRejectedToken(t *testing.T) {
	var rec recorder
	var cp atomic.Pointer[Client]
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("Authorization")
		switch rec.add(h) {
		case 1: // tok-1: another goroutine refreshes the cache meanwhile
			tc := cp.Load().core.Tokens()
			cur, err := tc.Get(r.Context())
			if err != nil {
				t.Error(err)
			}
			tc.Invalidate(cur)
			if _, err := tc.Get(r.Context()); err != nil {
				t.Error(err)
			}
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2: // the retry, with tok-2: rejected
			problem401(w)
		default:
			writeJSON(w, userJSON)
		}
	})
	src := &countingSource{}
	c := newTestClient(t, srv.URL, src)
	cp.Store(c)
	if err := updateUser(context.Background(), c); err != nil {
		t.Fatalf("call: %v", err)
	}
	if got, want := rec.get(), []string{"Bearer tok-1", "Bearer tok-2", "Bearer tok-3"}; !slices.Equal(got, want) {
		t.Fatalf("API saw %v, want %v", got, want)
	}
}

// Token sources are client-wide; a per-call one is refused, and other
// per-call options work with any source (a TokenSourceFunc is not
// comparable: the check must not compare it).
func TestPerCallTokenSourceRefused(t *testing.T) {
	var apiReqs atomic.Int64
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		apiReqs.Add(1)
		writeJSON(w, userJSON)
	})
	fn := TokenSourceFunc(func(context.Context) (Token, error) { return Token{Value: "f"}, nil })
	c := newTestClient(t, srv.URL, fn)
	if err := updateUser(context.Background(), c, option.WithHeader("X-Trace", "1")); err != nil {
		t.Fatalf("per-call header with a func source: %v", err)
	}
	for _, opt := range []option.RequestOption{option.WithTokenSource(StaticToken("other")), option.WithTokenSource(nil), option.WithTokenSource(fn)} {
		err := updateUser(context.Background(), c, opt)
		if !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Fatalf("per-call WithTokenSource: %v, want ErrInvalidInput", err)
		}
	}
	if apiReqs.Load() != 1 {
		t.Fatalf("API requests %d, want 1", apiReqs.Load())
	}
}

// A per-call header stays on that call: it must not be written into the
// client's shared header map.
func TestPerCallHeaderDoesNotLeakIntoClient(t *testing.T) {
	var rec recorder
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		rec.add(r.Header.Get("X-Client") + "|" + r.Header.Get("X-Call"))
		writeJSON(w, userJSON)
	})
	c := newTestClient(t, srv.URL, StaticToken("t"), option.WithHeader("X-Client", "c"))
	if err := updateUser(context.Background(), c, option.WithHeader("X-Call", "once")); err != nil {
		t.Fatal(err)
	}
	if err := updateUser(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.get(), []string{"c|once", "c|"}; !slices.Equal(got, want) {
		t.Fatalf("headers %v, want %v", got, want)
	}
}
