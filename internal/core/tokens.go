package core

import (
	"context"
	stderrors "errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/observe"
	"golang.org/x/sync/singleflight"
)

// TokenFetcher returns a fresh bearer token and its expiry (zero when
// unknown).
type TokenFetcher func(ctx context.Context) (value string, expiry time.Time, err error)

// CachedToken is one token held by the cache; Header, the ready-made
// Authorization value, spares the hit path an allocation.
type CachedToken struct {
	Value  string
	Header string
	Expiry time.Time
	softAt int64 // unix nanos: refresh early from here on (0: never)
	hardAt int64 // unix nanos: must refresh from here on
	// replacedUntil is set on a token fetched because a 401 rejected the
	// one before: until then (unix nanos), a 401 with it is the area's
	// answer and fetches nothing (Rejected).
	replacedUntil int64
}

// newCachedToken sets the refresh points min(SoftWindow, life/2) and
// min(HardWindow, life/10) before expiry, so a short-lived token is not
// refreshed on every call; as now plus a saturating duration, since
// exp.UnixNano() overflows after 2262.
func (c *TokenCache) newCachedToken(v string, exp time.Time) *CachedToken {
	t := &CachedToken{Value: v, Header: "Bearer " + v, Expiry: exp}
	if !exp.IsZero() {
		now := clock(c.Now)
		life := exp.Sub(now)
		if life <= 0 {
			c.warnExpired(exp, now)
			life = ExpiredTokenLifetime
		}
		base := now.UnixNano()
		t.softAt = addNanos(base, life-min(c.SoftWindow, life/2))
		t.hardAt = addNanos(base, life-min(c.HardWindow, life/10))
	}
	return t
}

// addNanos returns ns+d, saturating instead of wrapping. d is never
// negative: life > 0, and the windows (never set negative) take at most half.
func addNanos(ns int64, d time.Duration) int64 {
	if ns > math.MaxInt64-int64(d) {
		return math.MaxInt64
	}
	return ns + int64(d)
}

// warnExpired logs, once per cache, that the source returned an expired token.
func (c *TokenCache) warnExpired(exp, now time.Time) {
	if c.Logger == nil || !c.expiredWarned.CompareAndSwap(false, true) {
		return
	}
	c.Logger.LogAttrs(context.Background(), slog.LevelWarn,
		"memberplatform: token source returned an already expired token; using it for "+ExpiredTokenLifetime.String()+" or until rejected (clock skew?)",
		slog.Time("expiry", exp.UTC()), slog.Time("now", now.UTC()), slog.Duration("expired_for", now.Sub(exp)))
}

// String redacts the token.
func (t *CachedToken) String() string {
	if t == nil {
		return "<nil>"
	}
	return "CachedToken{Value:<redacted>, Expiry:" + t.Expiry.UTC().Format(time.RFC3339) + "}"
}

// GoString redacts the token for %#v.
func (t *CachedToken) GoString() string { return t.String() }

// Token cache defaults.
const (
	DefaultSoftWindow   = 5 * time.Minute  // refresh early, by one caller, this long before expiry
	DefaultHardWindow   = 30 * time.Second // everyone waits for a fresh token this long before expiry
	DefaultFetchTimeout = 30 * time.Second // bound on one shared fetch
	softRetryMin        = 5 * time.Second
	softRetryMax        = time.Minute
	// ExpiredTokenLifetime is how long a token already expired when fetched
	// (clock skew) is used, unless a 401 drops it sooner.
	ExpiredTokenLifetime = time.Minute
	// DefaultRejectedGrace is how long a token fetched because a 401
	// rejected the one before is kept whatever 401s it gets: the token
	// endpoint issued it moments ago, so a 401 then is the answering
	// area's error (one backend rejecting every token, as after a bad key
	// rotation), not a stale token, and fetching again would load the
	// token endpoint for nothing.
	DefaultRejectedGrace = 5 * time.Second
)

// TokenCache shares one token among a client's goroutines. In the soft
// window one caller refreshes while the others use the current token (a
// failed refresh backs off, 5s doubling to 1m); in the hard window, or
// expired or empty, all wait for one fetch, detached from their contexts
// and bounded by FetchTimeout: a fetch past it is abandoned, so a source
// that ignores its context cannot wedge the client. A caller whose
// deadline comes before the end of a Retry-After the fetch waits out
// returns that answer at once. Now is the clock (time.Now when nil).
type TokenCache struct {
	Fetch        TokenFetcher
	Now          func() time.Time
	SoftWindow   time.Duration
	HardWindow   time.Duration
	FetchTimeout time.Duration
	// RejectedGrace: see DefaultRejectedGrace (Rejected).
	RejectedGrace time.Duration
	Logger        *slog.Logger

	cur        atomic.Pointer[CachedToken]
	group      singleflight.Group
	refreshing atomic.Bool
	softUntil  atomic.Int64 // unix nanos before which no soft refresh is tried
	softFails  atomic.Int32
	fetches    atomic.Int64

	expiredWarned atomic.Bool
	observer      observe.Observer
	waits         tokenWaits // the answer the fetch in flight waits out (tokenfetch.go)
}

// NewTokenCache returns a cache around fetch with the default windows.
func NewTokenCache(fetch TokenFetcher) *TokenCache {
	return &TokenCache{Fetch: fetch, Now: time.Now, SoftWindow: DefaultSoftWindow, HardWindow: DefaultHardWindow, FetchTimeout: DefaultFetchTimeout,
		RejectedGrace: DefaultRejectedGrace}
}

// Fetches reports how many fetches the cache has started.
func (c *TokenCache) Fetches() int64 { return c.fetches.Load() }

// Get returns a usable token, fetching one if needed.
func (c *TokenCache) Get(ctx context.Context) (*CachedToken, error) {
	t := c.cur.Load()
	if t != nil {
		if t.softAt == 0 {
			return t, nil
		}
		now := clock(c.Now)
		ns := now.UnixNano()
		if ns < t.softAt {
			return t, nil
		}
		if ns < t.hardAt {
			return c.softRefresh(ctx, t, now), nil
		}
	}
	return c.fetchShared(ctx, t, false)
}

// Rejected is told that a request carrying t was answered 401, and returns
// the token to send it again with, or nil when another token cannot help:
//
//   - t was replaced since it was sent (another area's 401, an expiry):
//     the current token, without a fetch; one refresh serves every area.
//   - t was itself fetched because of a 401, less than RejectedGrace ago:
//     nil, the 401 is the area's answer.
//   - otherwise a fresh token, from one fetch shared with every caller
//     rejected meanwhile. t stays the cache's token until the fetch
//     returns, so the calls of areas that accept it never wait for it.
func (c *TokenCache) Rejected(ctx context.Context, t *CachedToken) (*CachedToken, error) {
	cur := c.cur.Load()
	switch {
	case cur != t:
		return c.Get(ctx)
	case clock(c.Now).UnixNano() < t.replacedUntil:
		return nil, nil
	}
	return c.fetchShared(ctx, t, true)
}

func (c *TokenCache) softRefresh(ctx context.Context, t *CachedToken, now time.Time) *CachedToken {
	if now.UnixNano() < c.softUntil.Load() || !c.refreshing.CompareAndSwap(false, true) {
		return t
	}
	defer c.refreshing.Store(false)
	nt, err := c.fetchShared(ctx, t, false)
	if err != nil {
		if ctx.Err() == nil { // a real failure, not this caller giving up
			n := c.softFails.Add(1)
			wait := min(softRetryMin<<min(n-1, 10), softRetryMax)
			c.softUntil.Store(clock(c.Now).Add(wait).UnixNano())
		}
		return t
	}
	return nt
}

// fetchShared returns a fresh token, joining the fetch in flight, or one
// that replaced seen, the token the caller found unusable; rejected says
// a 401 rejected seen (Rejected), when the fetch is the caller's own.
func (c *TokenCache) fetchShared(ctx context.Context, seen *CachedToken, rejected bool) (*CachedToken, error) {
	ch := c.group.DoChan("token", func() (any, error) {
		if cur := c.cur.Load(); cur != nil && cur != seen && (cur.hardAt == 0 || clock(c.Now).UnixNano() < cur.hardAt) {
			return cur, nil
		}
		c.fetches.Add(1)
		timeout := c.FetchTimeout
		if timeout <= 0 {
			timeout = DefaultFetchTimeout
		}
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		gen := c.waits.begin()
		defer c.waits.end(gen)
		v, exp, err := c.boundedFetch(context.WithValue(fctx, tokenWaitKey{}, tokenWaitPost{&c.waits, gen}), timeout)
		if err != nil {
			return nil, err
		}
		v = strings.TrimSpace(v) // a token read from a file often ends in a newline
		if err := CheckTokenValue(v); err != nil {
			return nil, &apierrors.TokenError{Reason: "token source returned " + err.Error()}
		}
		t := c.newCachedToken(v, exp)
		if rejected {
			t.replacedUntil = addNanos(clock(c.Now).UnixNano(), max(c.RejectedGrace, 0))
		}
		c.cur.Store(t)
		c.softFails.Store(0)
		c.softUntil.Store(0)
		return t, nil
	})
	return c.awaitFetch(ctx, ch)
}

// awaitFetch waits for the fetch ch delivers, or the caller's end, or an
// answer the fetch waits out past the caller's deadline. The result is
// looked at after the answer is: a fetch begins only once the previous
// one delivered, so an answer of a later fetch (one the caller is no part
// of) is read only when the caller's own result is already in ch.
func (c *TokenCache) awaitFetch(ctx context.Context, ch <-chan singleflight.Result) (*CachedToken, error) {
	deadline, bounded := ctx.Deadline()
	for {
		answer, until, changed := c.waits.watch()
		select {
		case r := <-ch:
			return fetchResultOf(r)
		default:
		}
		if answer != nil && bounded && until.After(deadline) {
			// The fetch waits out a Retry-After this caller cannot: it gets
			// the answer now, as an API call would (the fetch goes on for
			// callers with more time).
			// Each waiting caller gets its own copy: one may Redact or
			// change its error while the others read theirs.
			return nil, &apierrors.TokenError{StatusCode: answer.StatusCode, Err: cloneAnswer(answer)}
		}
		select {
		case r := <-ch:
			return fetchResultOf(r)
		case <-ctx.Done():
			return nil, &apierrors.TokenError{Err: ctx.Err()}
		case <-changed:
		}
	}
}

// fetchResultOf is a shared fetch's result as its callers get it: any
// failure a TokenError.
func fetchResultOf(r singleflight.Result) (*CachedToken, error) {
	if r.Err == nil {
		return r.Val.(*CachedToken), nil
	}
	if _, ok := stderrors.AsType[*apierrors.TokenError](r.Err); ok {
		return nil, r.Err
	}
	return nil, &apierrors.TokenError{Err: r.Err}
}

// fetch calls Fetch and turns a panic into a TokenError: it runs on a
// goroutine of its own (boundedFetch), where a panic would end the
// process. Any failure is a TokenError, as the call will report it: a
// token source's own error, untyped, would read to an observer as an HTTP
// attempt's transport failure (observe.ErrorType), and no HTTP happened.
func (c *TokenCache) fetch(ctx context.Context) (v string, exp time.Time, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &apierrors.TokenError{Reason: "the token source panicked", Err: fmt.Errorf("panic: %v", p)}
		}
	}()
	v, exp, err = c.Fetch(ctx)
	if _, typed := stderrors.AsType[*apierrors.TokenError](err); err != nil && !typed {
		err = &apierrors.TokenError{Err: err}
	}
	return v, exp, err
}

// CheckTokenValue reports whether v, non-empty visible ASCII, can be sent
// as a bearer token, without quoting it.
func CheckTokenValue(v string) error {
	if v == "" {
		return stderrors.New("an empty token")
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x21 || v[i] > 0x7e {
			return stderrors.New("a token with a space, control or non-ASCII character at byte " + strconv.Itoa(i))
		}
	}
	return nil
}

// Invalidate drops t if it is still the current token.
func (c *TokenCache) Invalidate(t *CachedToken) { c.cur.CompareAndSwap(t, nil) }
