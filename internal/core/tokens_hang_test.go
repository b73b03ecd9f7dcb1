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
	ended atomic.Int64
	err   atomic.Pointer[error]
}

func (r *fetchRecorder) EndTokenFetch(_ context.Context, err error) {
	r.ended.Add(1)
	if err != nil {
		r.err.Store(&err)
	}
}
