package core

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/fakeclock"
	"github.com/memberplatform/memberplatform-go/internal/pacer"
)

// Retries after a Retry-After are spread out (retryafter.go), on a fake
// clock: never before the Retry-After, within 40% (at most 2 s) after it,
// and the deadline rule unchanged.

// decideAfter returns Decide's result for a 429 with Retry-After ra
// seconds, the policy's random numbers from rnd, and a deadline dl after
// now (0: none).
func decideAfter(t *testing.T, ra string, rnd func() float64, dl time.Duration) (Decision, time.Duration) {
	t.Helper()
	clk := fakeclock.New()
	p := DefaultRetryPolicy()
	p.Rand, p.Now = rnd, clk.Now
	ctx := context.Background()
	if dl > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, clk.Now().Add(dl))
		t.Cleanup(cancel)
	}
	return p.Decide(ctx, 1, true, rtResp(429, "Retry-After", ra), nil)
}

// Calls throttled together come back spread over the 40% after their
// Retry-After, none before it: a tenth of the spread holds about a tenth of
// them.
func TestRetriesAfterARetryAfterSpreadOut(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 2))
	var tenths [4]int
	for range 1000 {
		d, wait := decideAfter(t, "1", src.Float64, 0)
		if d != Retry || wait < time.Second || wait >= 1400*time.Millisecond {
			t.Fatalf("Decide = %v, %v; want a retry in [1s, 1.4s)", d, wait)
		}
		tenths[(wait-time.Second)/(100*time.Millisecond)]++
	}
	for i, n := range tenths {
		if n < 180 || n > 320 {
			t.Fatalf("retries per 100 ms after the Retry-After: %v; want about 250 in each (tenth %d)", tenths, i)
		}
	}
}

// The Retry-After is a floor and the jitter bounded: 0 adds nothing, the
// jitter of a long Retry-After is at most 2 s.
func TestRetryAfterIsAFloorAndTheJitterBounded(t *testing.T) {
	for _, tc := range []struct {
		ra   string
		rnd  float64
		want time.Duration
	}{
		{"1", 0, time.Second},
		{"2", 0.999, 2*time.Second + 799200*time.Microsecond},
		{"15", 0.5, 16 * time.Second}, // 40% is 6 s: capped at 2 s
		{"0", 0.9, 0},
	} {
		if d, wait := decideAfter(t, tc.ra, func() float64 { return tc.rnd }, 0); d != Retry || wait != tc.want {
			t.Errorf("Retry-After %s, rand %v: Decide = %v, %v; want retry, %v", tc.ra, tc.rnd, d, wait, tc.want)
		}
	}
}

// A Retry-After that does not fit the deadline stops the call at once, as
// before; one that fits keeps half of what is left for the attempt, the
// jitter taking at most the other half.
func TestRetryAfterJitterKeepsTheDeadlineRule(t *testing.T) {
	if d, wait := decideAfter(t, "2", func() float64 { return 0 }, 1500*time.Millisecond); d != StopDeadline || wait != 2*time.Second {
		t.Fatalf("Retry-After 2 s, deadline in 1.5 s: Decide = %v, %v; want StopDeadline, 2s", d, wait)
	}
	if d, wait := decideAfter(t, "1", func() float64 { return 0.99 }, 1200*time.Millisecond); d != Retry || wait != 1100*time.Millisecond {
		t.Fatalf("Retry-After 1 s, deadline in 1.2 s: Decide = %v, %v; want retry, 1.1s", d, wait)
	}
	if d, wait := decideAfter(t, "1", func() float64 { return 0.99 }, time.Second); d != Retry || wait != time.Second {
		t.Fatalf("Retry-After 1 s ending at the deadline: Decide = %v, %v; want retry, 1s", d, wait)
	}
}

// While the area's pacer is engaged it spaces the retries: a throttled
// call's retry waits the Retry-After alone (a lone 429 engages it);
// without a pacer (or with it dormant, the throttle a hot resource's own),
// the Retry-After and its jitter.
func TestRetryAfterJitterOnlyWhileUnpaced(t *testing.T) {
	for _, paced := range []bool{false, true} {
		srv := throttleThenOK(t, "Retry-After-Ms", "100")
		var waits []time.Duration
		c := rtNewClient(t, srv.URL, func(s *Settings) {
			if !paced {
				other(s).Pacer = nil
			}
			s.Retry.Rand = func() float64 { return 0.99 }
			s.Retry.OnRetry = func(_ int, d time.Duration) { waits = append(waits, d) }
		})
		if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil {
			t.Fatal(err)
		}
		want := 139600 * time.Microsecond // 100 ms + 0.99 × 40 ms
		if paced {
			want = 100 * time.Millisecond
		}
		if len(waits) != 1 || waits[0] != want {
			t.Fatalf("paced %v: waits %v, want [%v]", paced, waits, want)
		}
	}
}

// A throttle of a resource's own (a hot key in a busy area) is retried
// after its Retry-After without jitter, though the area's pacer stays
// dormant: its retries are spaced by the resource's tracker instead
// (SpaceRetry), and a random share on top would only lengthen its calls'
// turns.
func TestAResourcesOwnThrottleIsRetriedWithoutJitter(t *testing.T) {
	var hotHits atomic.Int32
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if strings.HasSuffix(r.URL.Path, "/hot") && hotHits.Add(1) == 1 {
			w.Header().Set("Retry-After-Ms", "100")
			rtJSON(w, 429, `{}`)
			return
		}
		rtJSON(w, 200, `{}`)
	})
	var waits []time.Duration
	p := pacer.New()
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		other(s).Pacer = p
		s.Retry.Rand = func() float64 { return 0.99 } // a jitter would be 39.6 ms
		s.Retry.OnRetry = func(_ int, d time.Duration) { waits = append(waits, d) }
	})
	for range 20 { // a busy area: the hot key's first throttle is presumed a minority's
		if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil {
			t.Fatal(err)
		}
	}
	call := rtCall(rtPutOp, nil)
	call.PathParams[0] = "hot"
	if err := c.do(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if _, engaged := p.Rate(); engaged {
		t.Fatal("the area's pacer engaged for a hot key's throttle")
	}
	if len(waits) != 1 || waits[0] != 100*time.Millisecond {
		t.Fatalf("waits %v, want [100ms]: the Retry-After, no jitter", waits)
	}
}
