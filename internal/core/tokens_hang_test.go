package core

import (
	"context"
	stderrors "errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/observe"
	"golang.org/x/sync/singleflight"
)

// TestTokenCacheAbandonsHungFetch: a source that hangs once, ignoring its
// context, costs the callers of that fetch its bound, not the client: the
// next Get starts a new fetch, and the hung one's late token is dropped.
func TestTokenCacheAbandonsHungFetch(t *testing.T) {
	release := make(chan struct{})
	returned := make(chan struct{})
	var calls atomic.Int64
	c := NewTokenCache(func(context.Context) (string, time.Time, error) {
		if calls.Add(1) == 1 {
			defer close(returned)
			<-release // a read on a dead connection: the context is not looked at
			return "late-token", time.Time{}, nil
		}
		return "fresh-token", time.Time{}, nil
	})
	c.FetchTimeout = 100 * time.Millisecond
	defer func() { // the hung source's own goroutine ends with it
		close(release)
		<-returned
	}()

	start := time.Now()
	_, err := c.Get(context.Background())
	if !stderrors.Is(err, context.DeadlineExceeded) || !stderrors.Is(err, apierrors.ErrTokenUnavailable) {
		t.Fatalf("first Get: %v, want a TokenError for the bound", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("first Get took %v, want about the 100ms bound", d)
	}
	tok, err := c.Get(context.Background())
	if err != nil || tok.Value != "fresh-token" {
		t.Fatalf("second Get = %v, %v; want the fresh token from a new fetch", tok, err)
	}
	if n := calls.Load(); n != 2 {
		t.Fatalf("source called %d times, want 2", n)
	}
	close(release)
	<-returned
	release = make(chan struct{}) // closed by the deferred cleanup
	time.Sleep(20 * time.Millisecond)
	if got := mustGet(t, c); got.Value != "fresh-token" {
		t.Fatalf("after the hung fetch returned, the cache holds %q, want its result dropped", got.Value)
	}
}

// TestTokenCacheAbandonedFetchTellsObserver: the observer's token fetch
// ends at the bound, with the abandonment, not whenever the source returns.
func TestTokenCacheAbandonedFetchTellsObserver(t *testing.T) {
	release := make(chan struct{})
	returned := make(chan struct{})
	c := NewTokenCache(func(context.Context) (string, time.Time, error) {
		defer close(returned)
		<-release
		return "late", time.Time{}, nil
	})
	c.FetchTimeout = 50 * time.Millisecond
	obs := &fetchRecorder{}
	c.observer = obs
	if _, err := c.Get(context.Background()); err == nil {
		t.Fatal("Get succeeded, want the bound's error")
	}
	if obs.ended.Load() != 1 || obs.err.Load() == nil {
		t.Fatalf("EndTokenFetch calls = %d (err %v), want 1 with the error at the bound", obs.ended.Load(), obs.err.Load())
	}
	close(release)
	<-returned
}

// TestTokenCacheCallerLeavesOnRetryAfterPastItsDeadline: a fetch waiting
// out a 10s Retry-After hands that answer at once to a caller with 1.5s
// left, typed as the API's would be; a caller without deadline waits.
func TestTokenCacheCallerLeavesOnRetryAfterPastItsDeadline(t *testing.T) {
	proceed := make(chan struct{})
	c := NewTokenCache(func(ctx context.Context) (string, time.Time, error) {
		answer := &apierrors.Error{StatusCode: http.StatusTooManyRequests, RetryAfter: 10 * time.Second}
		noteTokenWait(ctx, answer, answer.RetryAfter)
		<-proceed // the retry, once the wait is over
		return "tok", time.Time{}, nil
	})
	patient := make(chan error, 1)
	go func() {
		_, err := c.Get(context.Background())
		patient <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Get(ctx)
	took := time.Since(start)
	if !stderrors.Is(err, apierrors.ErrRateLimited) {
		t.Fatalf("Get = %v, want ErrRateLimited", err)
	}
	if d, ok := apierrors.RetryAfterOf(err); !ok || d != 10*time.Second {
		t.Fatalf("RetryAfterOf = %v, %v; want 10s", d, ok)
	}
	if te, ok := stderrors.AsType[*apierrors.TokenError](err); !ok || te.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("error %T %v, want a TokenError with status 429", err, err)
	}
	if took > time.Second {
		t.Fatalf("Get returned after %v, want at once", took)
	}
	close(proceed)
	if err := <-patient; err != nil {
		t.Fatalf("the caller without deadline: %v, want the token of the fetch", err)
	}
}

// fetchRecorder counts the token fetches an observer is told of.
type fetchRecorder struct {
	observe.Nop
	started atomic.Int64 // by observers that count it
	ended   atomic.Int64
	err     atomic.Pointer[error]
}

func (r *fetchRecorder) EndTokenFetch(_ context.Context, err error) {
	r.ended.Add(1)
	if err != nil {
		r.err.Store(&err)
	}
}

// A wait posted by a fetch after it ended (a token source that returned
// while a retry of its own went on, as a wrapper with its own timeout
// does) is dropped: callers of the next fetch, or of none, never see an
// answer that no fetch is waiting out.
func TestTokenWaitPostedAfterItsFetchEndedIsDropped(t *testing.T) {
	var w tokenWaits
	answer := &apierrors.Error{StatusCode: http.StatusTooManyRequests, RetryAfter: 10 * time.Second}
	gen := w.begin()
	w.post(gen, answer, time.Second)
	if got, _, _ := w.watch(); got == nil {
		t.Fatal("a wait posted during its fetch is not seen")
	}
	w.end(gen)
	w.post(gen, answer, 10*time.Second) // late
	if got, _, _ := w.watch(); got != nil {
		t.Fatalf("after its fetch ended, a late post is seen: %v", got)
	}
	next := w.begin()
	w.post(gen, answer, 10*time.Second) // late, during the next fetch
	if got, _, _ := w.watch(); got != nil {
		t.Fatalf("a post of an ended fetch is seen by the next one: %v", got)
	}
	w.end(next)
}

// The same through the cache: a fetch that returned its token while a
// retry it started went on posts a Retry-After later; a caller who found
// the cache empty meanwhile gets the token, not that stale answer.
func TestTokenCacheIgnoresAWaitPostedAfterItsFetch(t *testing.T) {
	late, posted := make(chan struct{}), make(chan struct{})
	c := NewTokenCache(func(ctx context.Context) (string, time.Time, error) {
		go func() { // the source's own retry, on after it returned
			defer close(posted)
			<-late
			noteTokenWait(ctx, &apierrors.Error{StatusCode: http.StatusTooManyRequests, RetryAfter: 10 * time.Second}, 10*time.Second)
		}()
		return "tok", time.Time{}, nil
	})
	if _, err := c.Get(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(late)
	<-posted
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	got, err := c.fetchShared(ctx, nil, false) // found the cache empty before the fetch stored its token
	if err != nil || got.Value != "tok" {
		t.Fatalf("fetchShared = %v, %v; want the cached token", got, err)
	}
}

// A caller whose own fetch has delivered its token gets it, even when it
// looks only after a later fetch (begun by another caller, once this one
// delivered) posted a Retry-After past its deadline.
func TestTokenCallerGetsItsOwnFetchBeforeALaterFetchsWait(t *testing.T) {
	c := NewTokenCache(nil)
	own := c.newCachedToken("own", time.Time{})
	ch := make(chan singleflight.Result, 1)
	ch <- singleflight.Result{Val: own} // the caller's fetch delivered
	gen := c.waits.begin()              // then a later fetch began and waits out a 429
	c.waits.post(gen, &apierrors.Error{StatusCode: http.StatusTooManyRequests, RetryAfter: 10 * time.Second}, 10*time.Second)
	defer c.waits.end(gen)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	if got, err := c.awaitFetch(ctx, ch); err != nil || got != own {
		t.Fatalf("awaitFetch = %v, %v; want the caller's own token", got, err)
	}
}

// detachingObserver returns, from StartTokenFetch, a context without the
// fetch's deadline (as an observer that starts its span from a stored
// root context would).
type detachingObserver struct{ fetchRecorder }

func (o *detachingObserver) StartTokenFetch(ctx context.Context) context.Context {
	o.started.Add(1)
	return context.WithoutCancel(ctx)
}

// The fetch bound holds whatever context the observer returns: a hung
// source is abandoned at it, and the observer's events pair up.
func TestTokenCacheBoundHoldsWhateverTheObserverReturns(t *testing.T) {
	release, returned := make(chan struct{}), make(chan struct{})
	c := NewTokenCache(func(context.Context) (string, time.Time, error) {
		defer close(returned)
		<-release
		return "late", time.Time{}, nil
	})
	c.FetchTimeout = 50 * time.Millisecond
	obs := &detachingObserver{}
	c.observer = obs
	defer func() {
		close(release)
		<-returned
	}()
	done := make(chan error, 1)
	go func() {
		_, err := c.Get(context.Background())
		done <- err
	}()
	select {
	case err := <-done:
		if !stderrors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Get = %v, want the bound's error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Get still waits 10s after a 50ms bound: the observer's context dropped the bound")
	}
	if s, e := obs.started.Load(), obs.ended.Load(); s != 1 || e != 1 {
		t.Fatalf("StartTokenFetch %d, EndTokenFetch %d; want 1 and 1", s, e)
	}
}

// 40 callers on one hung fetch: the first cancels at once, some leave at
// their own deadlines, the rest fail at the bound; the source is called
// once for all of them, the observer's events pair up, and the next Get
// starts one new fetch, untouched by the hung one's late token.
func TestTokenCacheManyCallersOnAHungFetch(t *testing.T) {
	release, returned := make(chan struct{}), make(chan struct{})
	var calls atomic.Int64
	c := NewTokenCache(func(context.Context) (string, time.Time, error) {
		if calls.Add(1) == 1 {
			defer close(returned)
			<-release
			return "late", time.Time{}, nil
		}
		return "fresh", time.Time{}, nil
	})
	c.FetchTimeout = 300 * time.Millisecond
	obs := &detachingObserver{}
	c.observer = obs
	first, cancelFirst := context.WithCancel(context.Background())
	errs := make(chan error, 40)
	go func() {
		_, err := c.Get(first)
		errs <- err
	}()
	for calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancelFirst()
	for i := 1; i < 40; i++ {
		go func() {
			ctx := context.Background()
			if i%3 == 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 50*time.Millisecond)
				defer cancel()
			}
			_, err := c.Get(ctx)
			errs <- err
		}()
	}
	for range 40 {
		if err := <-errs; !stderrors.Is(err, apierrors.ErrTokenUnavailable) {
			t.Fatalf("a caller on the hung fetch: %v, want a TokenError", err)
		}
	}
	if got := mustGet(t, c); got.Value != "fresh" {
		t.Fatalf("after the bound: %q, want a fresh token", got.Value)
	}
	close(release)
	<-returned
	if got := mustGet(t, c); got.Value != "fresh" || calls.Load() != 2 {
		t.Fatalf("after the hung source returned: %q, %d source calls; want fresh, 2", got.Value, calls.Load())
	}
	if s, e := obs.started.Load(), obs.ended.Load(); s != 2 || e != 2 {
		t.Fatalf("StartTokenFetch %d, EndTokenFetch %d; want 2 and 2", s, e)
	}
}
