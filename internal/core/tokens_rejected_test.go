package core

import (
	"context"
	stderrors "errors"
	"sync"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/fakeclock"
)

// A 401 replaces the token only if it is still the one sent: a caller
// rejected with a token another caller already replaced gets the
// replacement, without a fetch.
func TestTokenCacheRejectedComparesTheTokenSent(t *testing.T) {
	f := &scriptedFetcher{clock: fakeclock.New(), life: time.Hour}
	c := newTestCache(f)
	t1 := mustGet(t, c)
	t2, err := c.Rejected(context.Background(), t1)
	if err != nil || t2 == nil || t2.Value != "tok-2" {
		t.Fatalf("Rejected(tok-1) = %v, %v; want tok-2", t2, err)
	}
	again, err := c.Rejected(context.Background(), t1) // a late 401 with tok-1
	if err != nil || again != t2 || f.calls.Load() != 2 {
		t.Fatalf("a late 401 with the replaced token: %v, %v after %d fetches; want tok-2 and no fetch", again, err, f.calls.Load())
	}
}

// One refresh serves every caller rejected meanwhile, and the callers of
// areas that accept the token keep it without waiting for the fetch.
func TestTokenCacheRejectedOneFetchServesEveryArea(t *testing.T) {
	clock := fakeclock.New()
	release := make(chan struct{})
	var started sync.Once
	fetching := make(chan struct{})
	f := &scriptedFetcher{clock: clock, life: time.Hour}
	c := NewTokenCache(func(ctx context.Context) (string, time.Time, error) {
		if f.calls.Load() > 0 {
			started.Do(func() { close(fetching) })
			<-release
		}
		return f.fetch(ctx)
	})
	c.Now = clock.Now
	t1 := mustGet(t, c)
	const n = 8
	got := make(chan *CachedToken, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			tok, err := c.Rejected(context.Background(), t1)
			if err != nil {
				t.Error(err)
			}
			got <- tok
		})
	}
	<-fetching
	if cur := mustGet(t, c); cur != t1 { // another area, during the fetch
		t.Fatalf("Get during the refresh = %v, want tok-1 at once", cur)
	}
	close(release)
	wg.Wait()
	close(got)
	for tok := range got {
		if tok == nil || tok.Value != "tok-2" {
			t.Fatalf("a rejected caller got %v, want tok-2", tok)
		}
	}
	if f.calls.Load() != 2 {
		t.Fatalf("%d fetches for %d rejected callers, want 2 (the first token, one refresh)", f.calls.Load(), n)
	}
}

// A 401 with a token fetched moments ago because of another 401 is the
// area's answer: nothing is fetched until RejectedGrace has passed.
func TestTokenCacheRejectedFreshReplacementIsTheAreasError(t *testing.T) {
	clock := fakeclock.New()
	f := &scriptedFetcher{clock: clock, life: time.Hour}
	c := newTestCache(f)
	t2, err := c.Rejected(context.Background(), mustGet(t, c))
	if err != nil {
		t.Fatal(err)
	}
	for range 100 { // one area rejecting every token
		if tok, err := c.Rejected(context.Background(), t2); tok != nil || err != nil {
			t.Fatalf("Rejected(a token fetched for a 401 moments ago) = %v, %v; want nil: the area's error", tok, err)
		}
	}
	clock.Add(DefaultRejectedGrace - time.Millisecond)
	if tok, _ := c.Rejected(context.Background(), t2); tok != nil || f.calls.Load() != 2 {
		t.Fatalf("just inside the grace: %v after %d fetches; want nil, 2", tok, f.calls.Load())
	}
	clock.Add(time.Millisecond)
	if tok, err := c.Rejected(context.Background(), t2); err != nil || tok == nil || tok.Value != "tok-3" {
		t.Fatalf("after the grace: %v, %v; want tok-3", tok, err)
	}
	if got := mustGet(t, c); got.Value != "tok-3" {
		t.Fatalf("cache holds %v, want tok-3", got)
	}
}

// A refresh that fails leaves the rejected token in place: areas that
// accept it are not stopped by the token endpoint's failure.
func TestTokenCacheRejectedFailedRefreshKeepsTheToken(t *testing.T) {
	f := &scriptedFetcher{clock: fakeclock.New(), life: time.Hour}
	c := newTestCache(f)
	t1 := mustGet(t, c)
	down := stderrors.New("token endpoint down")
	f.setErr(down)
	if tok, err := c.Rejected(context.Background(), t1); tok != nil || !stderrors.Is(err, down) {
		t.Fatalf("Rejected with the source down = %v, %v; want its error", tok, err)
	}
	if got := mustGet(t, c); got != t1 {
		t.Fatalf("cache holds %v after a failed refresh, want tok-1", got)
	}
}
