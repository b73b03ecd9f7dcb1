package core

import (
	"context"
	stderrors "errors"
	"sync/atomic"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"golang.org/x/sync/singleflight"
)

// TokenFetcher returns a fresh bearer token and its expiry (zero when
// unknown).
type TokenFetcher func(ctx context.Context) (value string, expiry time.Time, err error)

// CachedToken is one token held by the cache. Header is the ready-made
// Authorization value, so the hit path allocates nothing.
type CachedToken struct {
	Value  string
	Header string
	Expiry time.Time
	softAt int64 // unix nanos: refresh early from here on (0: never)
	hardAt int64 // unix nanos: must refresh from here on
}

// newCachedToken computes the refresh points: the soft window is
// min(SoftWindow, lifetime/2) before expiry and the hard window
// min(HardWindow, lifetime/10), so a short-lived token is not refreshed on
// every call.
func (c *TokenCache) newCachedToken(v string, exp time.Time) *CachedToken {
	t := &CachedToken{Value: v, Header: "Bearer " + v, Expiry: exp}
	if !exp.IsZero() {
		life := exp.Sub(c.Now())
		t.softAt = exp.Add(-min(c.SoftWindow, life/2)).UnixNano()
		t.hardAt = exp.Add(-min(c.HardWindow, life/10)).UnixNano()
	}
	return t
}

// Token cache defaults.
const (
	DefaultSoftWindow   = 5 * time.Minute  // refresh early, by one caller, this long before expiry
	DefaultHardWindow   = 30 * time.Second // everyone waits for a fresh token this long before expiry
	DefaultFetchTimeout = 30 * time.Second // bound on one shared fetch
	softRetryMin        = 5 * time.Second
	softRetryMax        = time.Minute
)

// TokenCache shares one token among all goroutines of a client.
//
//   - Hit path: a token further than the soft window from expiry, or with
//     unknown expiry (valid until the server rejects it), is returned with
//     one atomic load and no allocation.
//   - Soft window: the first caller to notice refreshes while the others keep
//     using the current token; a failed refresh keeps the current token and
//     backs off (5s doubling to 1m) before the next attempt.
//   - Hard window, expired or empty: every caller waits for exactly one
//     shared fetch (singleflight). The fetch runs detached from any one
//     caller's context (bounded by FetchTimeout), so a caller giving up does
//     not fail the others; each caller still returns when its own ctx ends.
//   - Invalidate drops a token rejected with 401, unless a newer token has
//     already replaced it.
type TokenCache struct {
	Fetch        TokenFetcher
	Now          func() time.Time
	SoftWindow   time.Duration
	HardWindow   time.Duration
	FetchTimeout time.Duration

	cur        atomic.Pointer[CachedToken]
	group      singleflight.Group
	refreshing atomic.Bool
	softUntil  atomic.Int64 // unix nanos before which no soft refresh is tried
	softFails  atomic.Int32
	fetches    atomic.Int64
}

// NewTokenCache returns a cache around fetch with the default windows.
func NewTokenCache(fetch TokenFetcher) *TokenCache {
	return &TokenCache{Fetch: fetch, Now: time.Now, SoftWindow: DefaultSoftWindow, HardWindow: DefaultHardWindow, FetchTimeout: DefaultFetchTimeout}
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
		now := c.Now()
		ns := now.UnixNano()
		if ns < t.softAt {
			return t, nil
		}
		if ns < t.hardAt {
			return c.softRefresh(ctx, t, now), nil
		}
	}
	return c.fetchShared(ctx)
}

func (c *TokenCache) softRefresh(ctx context.Context, t *CachedToken, now time.Time) *CachedToken {
	if now.UnixNano() < c.softUntil.Load() || !c.refreshing.CompareAndSwap(false, true) {
		return t
	}
	defer c.refreshing.Store(false)
	nt, err := c.fetchShared(ctx)
	if err != nil {
		if ctx.Err() == nil { // a real failure, not this caller giving up
			n := c.softFails.Add(1)
			wait := softRetryMin << min(n-1, 10)
			wait = min(wait, softRetryMax)
			c.softUntil.Store(c.Now().Add(wait).UnixNano())
		}
		return t
	}
	c.softFails.Store(0)
	return nt
}

func (c *TokenCache) fetchShared(ctx context.Context) (*CachedToken, error) {
	ch := c.group.DoChan("token", func() (any, error) {
		c.fetches.Add(1)
		timeout := c.FetchTimeout
		if timeout <= 0 {
			timeout = DefaultFetchTimeout
		}
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		v, exp, err := c.Fetch(fctx)
		if err != nil {
			return nil, err
		}
		if v == "" {
			return nil, &apierrors.TokenError{Reason: "token source returned an empty token"}
		}
		t := c.newCachedToken(v, exp)
		c.cur.Store(t)
		return t, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, asTokenError(r.Err)
		}
		return r.Val.(*CachedToken), nil
	case <-ctx.Done():
		return nil, &apierrors.TokenError{Err: ctx.Err()}
	}
}

// Invalidate drops t if it is still the current token.
func (c *TokenCache) Invalidate(t *CachedToken) {
	if t != nil {
		c.cur.CompareAndSwap(t, nil)
	}
}

func asTokenError(err error) error {
	var te *apierrors.TokenError
	if stderrors.As(err, &te) {
		return err
	}
	return &apierrors.TokenError{Err: err}
}
