package core

import (
	"bytes"
	"context"
	stderrors "errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/fakeclock"
)

// scriptedFetcher returns tokens "tok-1", "tok-2", ... expiring life after
// the clock's now, or err when set.
type scriptedFetcher struct {
	clock *fakeclock.Clock
	life  time.Duration
	calls atomic.Int64

	mu  sync.Mutex
	err error
}

func (f *scriptedFetcher) setErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

func (f *scriptedFetcher) fetch(context.Context) (string, time.Time, error) {
	n := f.calls.Add(1)
	f.mu.Lock()
	err := f.err
	f.mu.Unlock()
	if err != nil {
		return "", time.Time{}, err
	}
	var exp time.Time
	if f.life > 0 {
		exp = f.clock.Now().Add(f.life)
	}
	return "tok-" + strconv.FormatInt(n, 10), exp, nil
}

func newTestCache(f *scriptedFetcher) *TokenCache {
	c := NewTokenCache(f.fetch)
	c.Now = f.clock.Now
	return c
}

func mustGet(t *testing.T, c *TokenCache) *CachedToken {
	t.Helper()
	tok, err := c.Get(context.Background())
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	return tok
}

// TestTokenCacheColdCacheOneFetch: 1,000 goroutines on a cold cache cause
// exactly one token request, counted by the token server.
func TestTokenCacheColdCacheOneFetch(t *testing.T) {
	var served atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		<-release // hold the fetch open while the goroutines pile up
		_, _ = w.Write([]byte("server-token"))
	}))
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}

	c := NewTokenCache(func(ctx context.Context) (string, time.Time, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
		if err != nil {
			return "", time.Time{}, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return "", time.Time{}, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return "", time.Time{}, err
		}
		return string(b), time.Now().Add(time.Hour), nil
	})

	const n = 1000
	var wg sync.WaitGroup
	var started sync.WaitGroup
	started.Add(n)
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			started.Done()
			tok, err := c.Get(context.Background())
			if err == nil && tok.Value != "server-token" {
				err = fmt.Errorf("got token %q", tok.Value)
			}
			errs <- err
		})
	}
	started.Wait()
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := served.Load(); got != 1 {
		t.Fatalf("token server saw %d requests, want exactly 1", got)
	}
	if got := c.Fetches(); got != 1 {
		t.Fatalf("Fetches() = %d, want 1", got)
	}
}

func TestTokenCacheUnknownExpiryIsReused(t *testing.T) {
	clock := fakeclock.New()
	f := &scriptedFetcher{clock: clock} // zero expiry
	c := newTestCache(f)
	first := mustGet(t, c)
	clock.Add(1000 * time.Hour)
	if second := mustGet(t, c); second != first {
		t.Fatalf("token with unknown expiry was refetched: %v then %v", first.Value, second.Value)
	}
	if first.Header != "Bearer tok-1" {
		t.Fatalf("Header = %q", first.Header)
	}
	if got := f.calls.Load(); got != 1 {
		t.Fatalf("fetches = %d, want 1", got)
	}
}

func TestTokenCacheSoftWindowRefreshesEarly(t *testing.T) {
	clock := fakeclock.New()
	f := &scriptedFetcher{clock: clock, life: time.Hour}
	c := newTestCache(f)
	first := mustGet(t, c)
	exp := first.Expiry

	clock.Set(exp.Add(-DefaultSoftWindow - time.Second)) // before the soft window
	if tok := mustGet(t, c); tok != first || f.calls.Load() != 1 {
		t.Fatalf("refreshed before the soft window: %s, fetches %d", tok.Value, f.calls.Load())
	}
	clock.Set(exp.Add(-DefaultSoftWindow + time.Second)) // inside it, outside the hard window
	tok := mustGet(t, c)
	if tok.Value != "tok-2" || f.calls.Load() != 2 {
		t.Fatalf("soft window: got %s after %d fetches, want tok-2 after 2", tok.Value, f.calls.Load())
	}
	if again := mustGet(t, c); again != tok {
		t.Fatalf("fresh token not cached: %s", again.Value)
	}
}

// While one caller refreshes in the soft window, the others keep using the
// current token without waiting.
func TestTokenCacheSoftWindowOthersUseCurrentToken(t *testing.T) {
	clock := fakeclock.New()
	c := NewTokenCache(nil)
	c.Now = clock.Now
	var calls atomic.Int64
	entered := make(chan struct{})
	release := make(chan struct{})
	c.Fetch = func(context.Context) (string, time.Time, error) {
		if calls.Add(1) == 2 {
			close(entered)
			<-release
			return "new", clock.Now().Add(time.Hour), nil
		}
		return "old", clock.Now().Add(time.Hour), nil
	}
	old := mustGet(t, c)
	clock.Set(old.Expiry.Add(-time.Minute)) // soft window

	refreshed := make(chan *CachedToken)
	go func() {
		tok, _ := c.Get(context.Background())
		refreshed <- tok
	}()
	<-entered // the refresher is inside the fetch
	for range 10 {
		if tok := mustGet(t, c); tok != old {
			t.Fatalf("a non-refreshing caller got %q, want the current token", tok.Value)
		}
	}
	close(release)
	if tok := <-refreshed; tok.Value != "new" {
		t.Fatalf("refresher got %q, want new", tok.Value)
	}
	if tok := mustGet(t, c); tok.Value != "new" {
		t.Fatalf("after refresh got %q", tok.Value)
	}
	if got := calls.Load(); got != 2 {
		t.Fatalf("fetches = %d, want 2", got)
	}
}

// A failed soft refresh keeps the still-valid token and backs off (5s, then
// 10s...) before trying again; a later success clears the backoff.
func TestTokenCacheFailedSoftRefreshKeepsTokenAndBacksOff(t *testing.T) {
	clock := fakeclock.New()
	f := &scriptedFetcher{clock: clock, life: time.Hour}
	c := newTestCache(f)
	first := mustGet(t, c)
	clock.Set(first.Expiry.Add(-4 * time.Minute)) // soft window
	f.setErr(stderrors.New("token endpoint down"))

	step := func(wantFetches int64) {
		t.Helper()
		tok, err := c.Get(context.Background())
		if err != nil {
			t.Fatalf("Get in soft window failed: %v", err)
		}
		if tok != first {
			t.Fatalf("got %q, want the current token kept", tok.Value)
		}
		if got := f.calls.Load(); got != wantFetches {
			t.Fatalf("fetches = %d, want %d", got, wantFetches)
		}
	}
	step(2) // first failed refresh
	step(2) // backing off: no new fetch
	clock.Add(4 * time.Second)
	step(2) // still within 5s
	clock.Add(2 * time.Second)
	step(3) // 6s later: retried, failed again; backoff now 10s
	clock.Add(9 * time.Second)
	step(3)
	clock.Add(2 * time.Second)
	step(4)

	f.setErr(nil)
	clock.Add(21 * time.Second) // third backoff was 20s
	tok := mustGet(t, c)
	if tok == first || f.calls.Load() != 5 {
		t.Fatalf("after recovery got %q with %d fetches", tok.Value, f.calls.Load())
	}
	if c.softFails.Load() != 0 || c.softUntil.Load() != 0 {
		t.Fatal("a successful fetch did not clear the soft backoff")
	}
}

func TestTokenCacheHardWindowMustRefresh(t *testing.T) {
	clock := fakeclock.New()
	f := &scriptedFetcher{clock: clock, life: time.Hour}
	c := newTestCache(f)
	first := mustGet(t, c)

	clock.Set(first.Expiry.Add(-DefaultHardWindow + time.Second)) // hard window, not yet expired
	f.setErr(stderrors.New("token endpoint down"))
	tok, err := c.Get(context.Background())
	if err == nil {
		t.Fatalf("hard window with failing fetch returned %v, want an error", tok)
	}
	var te *apierrors.TokenError
	if !stderrors.As(err, &te) || !stderrors.Is(err, apierrors.ErrTokenUnavailable) {
		t.Fatalf("error %T %v is not a *TokenError", err, err)
	}
	// No soft backoff in the hard window: the next caller tries again.
	if _, err := c.Get(context.Background()); err == nil || f.calls.Load() != 3 {
		t.Fatalf("second hard-window Get: err %v, fetches %d (want error, 3)", err, f.calls.Load())
	}
	f.setErr(nil)
	if tok := mustGet(t, c); tok.Value != "tok-4" {
		t.Fatalf("got %q, want tok-4", tok.Value)
	}
}

func TestTokenCacheExpiredTokenIsRefetched(t *testing.T) {
	clock := fakeclock.New()
	f := &scriptedFetcher{clock: clock, life: time.Hour}
	c := newTestCache(f)
	first := mustGet(t, c)
	clock.Set(first.Expiry.Add(time.Second))
	if tok := mustGet(t, c); tok.Value != "tok-2" {
		t.Fatalf("expired token: got %q, want tok-2", tok.Value)
	}
}

// A short-lived token gets proportional windows: soft at half its lifetime,
// hard at a tenth, so it is not refreshed on every call.
func TestTokenCacheShortLivedWindows(t *testing.T) {
	clock := fakeclock.New()
	f := &scriptedFetcher{clock: clock, life: 10 * time.Second}
	c := newTestCache(f)
	first := mustGet(t, c)
	clock.Add(4 * time.Second)
	if tok := mustGet(t, c); tok != first {
		t.Fatal("refreshed before half the lifetime")
	}
	clock.Add(2 * time.Second) // 6s: soft window (last 5s)
	if tok := mustGet(t, c); tok.Value != "tok-2" {
		t.Fatalf("got %q, want tok-2", tok.Value)
	}
	if want := first.Expiry.Add(-time.Second).UnixNano(); first.hardAt != want {
		t.Fatalf("hardAt = %d, want %d (expiry - lifetime/10)", first.hardAt, want)
	}
}

// One caller cancelling does not abort the shared fetch; each waiter
// honours its own context.
func TestTokenCacheCancelledWaiterDoesNotFailOthers(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	var fetchCtxErr atomic.Value
	var calls atomic.Int64
	c := NewTokenCache(func(ctx context.Context) (string, time.Time, error) {
		calls.Add(1)
		close(entered)
		<-release
		fetchCtxErr.Store(fmt.Sprint(ctx.Err()))
		return "shared", time.Time{}, nil
	})

	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan error, 1)
	go func() {
		_, err := c.Get(ctx)
		cancelled <- err
	}()
	<-entered
	others := make(chan *CachedToken, 2)
	otherErrs := make(chan error, 2)
	for range 2 {
		go func() {
			tok, err := c.Get(context.Background())
			if err != nil {
				otherErrs <- err
				return
			}
			others <- tok
		}()
	}
	cancel()
	err := <-cancelled
	if !stderrors.Is(err, context.Canceled) || !stderrors.Is(err, apierrors.ErrTokenUnavailable) {
		t.Fatalf("cancelled waiter: %v, want a *TokenError wrapping context.Canceled", err)
	}
	close(release)
	for range 2 {
		select {
		case tok := <-others:
			if tok.Value != "shared" {
				t.Fatalf("other waiter got %q", tok.Value)
			}
		case err := <-otherErrs:
			t.Fatalf("other waiter failed: %v", err)
		}
	}
	if got := fetchCtxErr.Load(); got != "<nil>" {
		t.Fatalf("the shared fetch's context was %v, want still live", got)
	}
	if calls.Load() != 1 {
		t.Fatalf("fetches = %d, want 1", calls.Load())
	}
}

func TestTokenCacheFetchTimeoutBoundsSharedFetch(t *testing.T) {
	c := NewTokenCache(func(ctx context.Context) (string, time.Time, error) {
		<-ctx.Done()
		return "", time.Time{}, ctx.Err()
	})
	c.FetchTimeout = 20 * time.Millisecond
	_, err := c.Get(context.Background())
	if !stderrors.Is(err, context.DeadlineExceeded) || !stderrors.Is(err, apierrors.ErrTokenUnavailable) {
		t.Fatalf("err = %v, want a *TokenError wrapping DeadlineExceeded", err)
	}
}

func TestTokenCacheEmptyTokenIsAnError(t *testing.T) {
	c := NewTokenCache(func(context.Context) (string, time.Time, error) { return "", time.Time{}, nil })
	_, err := c.Get(context.Background())
	var te *apierrors.TokenError
	if !stderrors.As(err, &te) {
		t.Fatalf("err = %v, want *TokenError", err)
	}
	if c.cur.Load() != nil {
		t.Fatal("empty token was cached")
	}
}

func TestTokenCacheInvalidateExactToken(t *testing.T) {
	clock := fakeclock.New()
	f := &scriptedFetcher{clock: clock}
	c := newTestCache(f)
	t1 := mustGet(t, c)
	c.Invalidate(t1)
	t2 := mustGet(t, c)
	if t2.Value != "tok-2" {
		t.Fatalf("after Invalidate got %q", t2.Value)
	}
	// A late 401 for the old token must not drop the new one.
	c.Invalidate(t1)
	if tok := mustGet(t, c); tok != t2 || f.calls.Load() != 2 {
		t.Fatalf("stale invalidation dropped the new token: %q, fetches %d", tok.Value, f.calls.Load())
	}
	// Dropping the current token fetches a fresh one; nil drops nothing.
	// (Which token a 401 drops is the pipeline's choice: client's
	// TestUnauthorizedAfterRetryDropsTheRejectedToken and
	// TestUnauthorizedFromAnotherOriginIsNotResent.)
	c.Invalidate(t2)
	cur := mustGet(t, c)
	if cur.Value != "tok-3" {
		t.Fatalf("rejected current token was kept: %q", cur.Value)
	}
	c.Invalidate(nil)
	if tok := mustGet(t, c); tok != cur {
		t.Fatal("Invalidate(nil) dropped the token")
	}
}

func TestCachedTokenRedacted(t *testing.T) {
	tok := &CachedToken{Value: "s3cr3t-value", Header: "Bearer s3cr3t-value", Expiry: time.Unix(1e9, 0)}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(verb, tok); strings.Contains(out, "s3cr3t") {
			t.Fatalf("%s leaked the token: %s", verb, out)
		}
	}
}

// A caller that found no usable token but joins only after another fetch
// has finished gets that fetch's token instead of fetching again (the gap
// between loading the current token and joining the shared fetch).
func TestTokenCacheLateJoinerReusesFreshToken(t *testing.T) {
	clock := fakeclock.New()
	f := &scriptedFetcher{clock: clock, life: time.Hour}
	c := newTestCache(f)
	fresh := mustGet(t, c)
	got, err := c.fetchShared(context.Background(), nil, false) // saw an empty cache
	if err != nil || got != fresh || f.calls.Load() != 1 {
		t.Fatalf("late joiner: %v, %v after %d fetches; want the fresh token, no new fetch", got, err, f.calls.Load())
	}
	// A caller that saw this very token as needing a refresh does fetch.
	got, err = c.fetchShared(context.Background(), fresh, false)
	if err != nil || got.Value != "tok-2" {
		t.Fatalf("refresh of the seen token: %v, %v", got, err)
	}
	// So does one whose replacement is itself in the hard window.
	clock.Set(got.Expiry.Add(-time.Second))
	if again, err := c.fetchShared(context.Background(), fresh, false); err != nil || again.Value != "tok-3" {
		t.Fatalf("hard-window replacement reused: %v, %v", again, err)
	}
}

// An expiry beyond what int64 Unix nanoseconds can hold (after 2262) must
// not overflow the refresh points into the past: such a token is simply
// valid for as long as the process runs. Before the fix every Get fetched.
func TestTokenCacheFarFutureExpiryIsCached(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name string
		exp  time.Time
	}{
		{"year 9999", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)},
		{"epoch 1e10 (2286)", time.Unix(1e10, 0)},
		{"250 years ahead", now.AddDate(250, 0, 0)},
		{"just past the int64 nanosecond range", time.Unix(0, math.MaxInt64).Add(time.Hour)},
		{"max time.Time", time.Unix(1<<63-62135596801, 999999999)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := fakeclock.New()
			clock.Set(now)
			var fetches atomic.Int64
			c := NewTokenCache(func(context.Context) (string, time.Time, error) {
				fetches.Add(1)
				return "far", tc.exp, nil
			})
			c.Now = clock.Now
			first := mustGet(t, c)
			for range 19 {
				clock.Add(time.Hour)
				if tok := mustGet(t, c); tok != first {
					t.Fatalf("token replaced: %v", tok)
				}
			}
			if n := fetches.Load(); n != 1 {
				t.Fatalf("20 Gets made %d fetches, want 1", n)
			}
			if !first.Expiry.Equal(tc.exp) {
				t.Fatalf("Expiry = %v, want the source's %v kept as given", first.Expiry, tc.exp)
			}
		})
	}
}

// A token whose expiry has already passed when it is fetched (the issuer's
// clock is behind ours) is used for ExpiredTokenLifetime, or until a 401,
// instead of being fetched again on every call; the cache warns once.
func TestTokenCachePastExpiryIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		expiry func(fetchedAt time.Time) time.Time
	}{
		{"clock skew of an hour", func(at time.Time) time.Time { return at.Add(-time.Hour) }},
		{"expiry equal to now", func(at time.Time) time.Time { return at }},
		{"a century ago", func(at time.Time) time.Time { return at.AddDate(-100, 0, 0) }},
		{"before the int64 nanosecond range", func(time.Time) time.Time { return time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := fakeclock.New()
			var fetches atomic.Int64
			c := NewTokenCache(func(context.Context) (string, time.Time, error) {
				n := fetches.Add(1)
				return "skewed-secret-" + strconv.FormatInt(n, 10), tc.expiry(clock.Now()), nil
			})
			c.Now = clock.Now
			var logs bytes.Buffer
			c.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))

			fetchedAt := clock.Now()
			first := mustGet(t, c)
			for range 19 {
				clock.Add(time.Second)
				if tok := mustGet(t, c); tok != first {
					t.Fatalf("refetched after %d fetches", fetches.Load())
				}
			}
			if n := fetches.Load(); n != 1 {
				t.Fatalf("20 Gets within 20s made %d fetches, want 1", n)
			}
			// Bounded, not forever: past the minimum lifetime it is
			// fetched again (the hard window of a 1-minute life is 6s).
			clock.Set(fetchedAt.Add(ExpiredTokenLifetime))
			if tok := mustGet(t, c); tok == first || fetches.Load() != 2 {
				t.Fatalf("after %v: token %v, %d fetches; want a refetch", ExpiredTokenLifetime, tok, fetches.Load())
			}
			// Warned once, whatever the number of expired tokens, and
			// without the token.
			out := logs.String()
			if n := strings.Count(out, "\n"); n != 1 || !strings.Contains(out, `"level":"WARN"`) || !strings.Contains(out, "expired") {
				t.Fatalf("log = %q, want exactly one Warn record about the expired token", out)
			}
			if strings.Contains(out, "skewed-secret") {
				t.Fatalf("log holds the token: %s", out)
			}
		})
	}
}

// A 401 still drops a token kept past its expiry: the minimum lifetime
// does not outlive the server's rejection.
func TestTokenCachePastExpiryInvalidatedBy401(t *testing.T) {
	clock := fakeclock.New()
	var fetches atomic.Int64
	c := NewTokenCache(func(context.Context) (string, time.Time, error) {
		fetches.Add(1)
		return "old", clock.Now().Add(-time.Hour), nil
	})
	c.Now = clock.Now // no Logger: the warning must be nil-safe
	first := mustGet(t, c)
	c.Invalidate(first)
	if tok := mustGet(t, c); tok == first || fetches.Load() != 2 {
		t.Fatalf("after a 401: %v, %d fetches; want a fresh fetch", tok, fetches.Load())
	}
}

// A panicking token source must not end the process: the fetch runs on
// singleflight's goroutine, out of every caller's reach.
func TestTokenCachePanickingSourceIsATokenError(t *testing.T) {
	c := NewTokenCache(func(context.Context) (string, time.Time, error) { panic("source bug") })
	_, err := c.Get(context.Background())
	var te *apierrors.TokenError
	if !stderrors.As(err, &te) || !strings.Contains(err.Error(), "panicked") || !strings.Contains(err.Error(), "source bug") {
		t.Fatalf("err = %v, want a TokenError saying the source panicked", err)
	}
}
