package pacer

import (
	"context"
	stderrors "errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// engaged returns a real-clock pacer engaged at r attempts per second,
// whose next slot is free now.
func engaged(r float64) *Pacer {
	p := New()
	p.Engage(r)
	return p
}

// waitQueued returns once n callers wait in p's queue.
func waitQueued(p *Pacer, n int) {
	for {
		p.mu.Lock()
		queued := len(p.queue)
		p.mu.Unlock()
		if queued == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// Dormant, the pacer costs a healthy answer no lock and no allocation, and
// lets every attempt through with epoch 0.
func TestDormantPacerTakesNoLockAndAllocatesNothing(t *testing.T) {
	p := New()
	if epoch, err := p.Wait(context.Background(), NoMaxWait); err != nil || epoch != 0 {
		t.Fatalf("Wait = %d, %v; want epoch 0 at once", epoch, err)
	}
	if n := testing.AllocsPerRun(1000, func() {
		admit(p)
		if _, err := p.Wait(context.Background(), time.Second); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per dormant answer and wait, want 0", n)
	}
	p.mu.Lock() // a dormant pacer never needs it
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			admit(p)
			_, _ = p.Wait(context.Background(), time.Second)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a dormant pacer's Admitted or Wait waited for its lock")
	}
	p.mu.Unlock()
	if got := p.meter.Rate(time.Now()); got < 1000 {
		t.Fatalf("meter counted %v answers, want the 1,100 just made", got)
	}
	wantRate(t, p, 0, false)
}

func TestPacerPaces(t *testing.T) {
	clock, a := newClockedPacer()
	a.Throttled(0, 0)
	a.mu.Lock()
	a.rate = 20
	a.next = clock.Now()
	first := a.take(clock.Now())
	next1 := a.next
	a.take(clock.Now())
	next2 := a.next
	a.mu.Unlock()
	if first != 1 || next1.Sub(clock.Now()) != 50*time.Millisecond || next2.Sub(clock.Now()) != 100*time.Millisecond {
		t.Fatalf("slots: epoch %d, next %v then %v; want 50ms apart", first, next1.Sub(clock.Now()), next2.Sub(clock.Now()))
	}
	// A slot taken 30ms late: the next is a whole interval after it, not
	// made up by a shorter gap that a provider with a burst of 1 would
	// refuse; nor after an idle spell.
	clock.Add(130 * time.Millisecond)
	a.mu.Lock()
	a.take(clock.Now())
	late := a.next.Sub(clock.Now())
	clock.Add(time.Second)
	a.take(clock.Now())
	idle := a.next.Sub(clock.Now())
	a.mu.Unlock()
	if late != 50*time.Millisecond || idle != 50*time.Millisecond {
		t.Fatalf("next slot %v after a late take, %v after an idle second; want 50ms both", late, idle)
	}

	b := engaged(50) // 20ms apart, in real time
	start := time.Now()
	for range 6 {
		if _, err := b.Wait(context.Background(), NoMaxWait); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 100*time.Millisecond {
		t.Fatalf("6 slots at 50/s took %v, want at least 100ms", el)
	}
}

// A wait that would end after the deadline, or last longer than maxWait (0,
// WithMaxRetryAfter(0), allows none), is refused at once with a *Refusal
// that says why; a slot free now is taken, and one within reach waited for.
func TestWaitRefusals(t *testing.T) {
	for _, tc := range []struct {
		name     string
		timeout  time.Duration // of the context, 0 for none
		maxWait  time.Duration
		deadline bool
		says     string
	}{
		{"past the deadline", 200 * time.Millisecond, NoMaxWait, true, "after the deadline"},
		{"further than maxWait", 0, 500 * time.Millisecond, false, "longer than the 500ms a wait may last"},
		{"maxWait 0", 0, 0, false, "longer than the 0s a wait may last"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := engaged(MinRate) // one slot a second
			if _, err := p.Wait(context.Background(), tc.maxWait); err != nil {
				t.Fatalf("the free slot: %v", err)
			}
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			start := time.Now()
			_, err := p.Wait(ctx, tc.maxWait)
			var r *Refusal
			if !stderrors.As(err, &r) || r.Deadline != tc.deadline || stderrors.Is(err, context.DeadlineExceeded) != tc.deadline ||
				!tc.deadline && r.MaxWait != tc.maxWait || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("Wait = %v; want a *Refusal saying %q", err, tc.says)
			}
			if el := time.Since(start); el > 500*time.Millisecond || len(p.queue) != 0 {
				t.Fatalf("refused after %v with %d queued; want at once, nothing queued", el, len(p.queue))
			}
			if _, err := p.Wait(context.Background(), 3*time.Second); err != nil {
				t.Fatalf("Wait with room for the slot = %v", err)
			}
		})
	}
}

// queued returns a pacer with a slot a second, the free one taken, and n
// waiters queued on ctx, whose errors come on the channel.
func queued(ctx context.Context, t *testing.T, n int) (*Pacer, <-chan error) {
	p := engaged(MinRate)
	if _, err := p.Wait(context.Background(), NoMaxWait); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, n)
	for range n {
		go func() { _, err := p.Wait(ctx, NoMaxWait); errs <- err }()
	}
	waitQueued(p, n)
	return p, errs
}

// A waiter queued behind others counts their slots: the third in line is
// 2 s or more away.
func TestWaitCountsTheQueueAgainstMaxWait(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, _ := queued(ctx, t, 2)
	var r *Refusal
	if _, err := p.Wait(context.Background(), 1500*time.Millisecond); !stderrors.As(err, &r) || r.Wait < 2*time.Second || r.RetryAfter() != r.Wait {
		t.Fatalf("Wait behind 2 waiters = %v; want a refusal of a slot ≥ 2 s away, its RetryAfter the wait", err)
	}
}

func TestPacerCancelLeavesTheQueue(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, errs := queued(ctx, t, 3)
	cancel()
	for range 3 {
		if err := <-errs; !stderrors.Is(err, context.Canceled) {
			t.Fatalf("wait = %v, want context.Canceled", err)
		}
	}
	if len(p.queue) != 0 {
		t.Fatalf("%d waiters left queued", len(p.queue))
	}
}

// Waiters queued at a low rate go as fast as the rate allows once it grows:
// each slot is timed when it comes, not when it was asked for.
func TestPacerQueuedWaitersFollowTheRate(t *testing.T) {
	a := engaged(2) // 500ms apart
	if _, err := a.Wait(context.Background(), NoMaxWait); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if _, err := a.Wait(context.Background(), NoMaxWait); err != nil {
				t.Error(err)
			}
		})
	}
	time.Sleep(20 * time.Millisecond)
	a.mu.Lock()
	a.rate = 1000
	a.mu.Unlock()
	wg.Wait()
	// The head waits out the slot it saw (≤ 500ms); the other four follow
	// 1ms apart instead of 500ms.
	if el := time.Since(start); el > 1500*time.Millisecond {
		t.Fatalf("5 waiters took %v, want the new rate to apply to them", el)
	}
}

// An attempt let through after a cut carries the new epoch.
func TestPacerSlotAfterACutCarriesTheNewEpoch(t *testing.T) {
	a := engaged(20)
	a.epoch.Store(7)
	if e, err := a.Wait(context.Background(), NoMaxWait); err != nil || e != 7 {
		t.Fatalf("wait = %d, %v; want epoch 7", e, err)
	}
	done := make(chan uint64)
	go func() { e, _ := a.Wait(context.Background(), NoMaxWait); done <- e }()
	time.Sleep(5 * time.Millisecond)
	a.Throttled(7, 0) // cut while the second waiter waits
	if e := <-done; e != 8 {
		t.Fatalf("slot after the cut carries epoch %d, want 8", e)
	}
}

// Slots keep the rate between whole milliseconds. On Linux a Go timer wakes
// up to a millisecond late while the process idles, and a slot taken late is
// lost: a pacer at 700 attempts/s (a slot every 1.43 ms) sent one every
// 2 ms or more, 0.7 × its rate. The median gap tolerates a busy machine's
// stragglers.
func TestSlotsKeepTheRateBetweenWholeMilliseconds(t *testing.T) {
	const rate, slots = 700.0, 300
	p := engaged(rate)
	var mu sync.Mutex
	var taken []time.Time
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				if _, err := p.Wait(context.Background(), NoMaxWait); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				taken = append(taken, time.Now())
				done := len(taken) >= slots
				mu.Unlock()
				if done {
					return
				}
			}
		})
	}
	wg.Wait()
	gaps := make([]time.Duration, 0, len(taken)-1)
	for i := 1; i < len(taken); i++ {
		gaps = append(gaps, taken[i].Sub(taken[i-1]))
	}
	slices.Sort(gaps)
	interval := p.interval()
	if median := gaps[len(gaps)/2]; median > interval*5/4 {
		t.Fatalf("median gap between slots %v at %v attempts/s, want ≤ %v (1.25 × its interval %v)", median, rate, interval*5/4, interval)
	}
}

// A precise sleep that wakes late, as nanosleep does by about 0.1 ms, is
// made up on average: the head sleeps the average lateness less, and takes
// its slot when it wakes that much early, so the gaps between slots keep
// the interval. Without it, 0.1 ms late at 600 attempts/s is 6% of the
// rate. The lateness learnt is bounded: a sample counts at most precise/4,
// and the head is early by at most an eighth of the interval.
func TestLateWakeIsMadeUpOnAverage(t *testing.T) {
	if precise == 0 {
		t.Skip("no precise sleep here: Go's timers wake on time on this system")
	}
	clock, p := newClockedPacer()
	var n int
	p.sleep = func(d time.Duration) { // 50 and 150 µs late in turn
		n++
		clock.Add(d + time.Duration(50+100*(n%2))*time.Microsecond)
	}
	// (600/s: an early slot's next wait, up to 1/8 longer than the
	// interval, stays within precise, never on a real timer.)
	p.Engage(600)
	var taken []time.Time
	for range 200 {
		if _, err := p.Wait(context.Background(), NoMaxWait); err != nil {
			t.Fatal(err)
		}
		taken = append(taken, clock.Now())
	}
	// Over the last 100 gaps, once the lead has learnt the lateness.
	mean := taken[199].Sub(taken[99]) / 100
	if interval := p.interval(); mean < interval-time.Microsecond || mean > interval+5*time.Microsecond {
		t.Fatalf("mean gap %v over the last 100 slots at 600/s, each sleep 50 or 150 µs late; want the interval, %v", mean, interval)
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	before := p.late
	p.sleptLate(time.Second) // a sleeper descheduled for a second
	if most := precise / 4 / 8; p.late-before > most {
		t.Fatalf("lateness learnt %v after a second-late sample, from %v: want at most %v more", p.late, before, most)
	}
	p.rate = 4000 // an interval of 250 µs
	if p.lead() > p.interval()/8 {
		t.Fatalf("lead %v at 4,000/s, want at most an eighth of the interval, %v", p.lead(), p.interval()/8)
	}
}

// A wait whose context ends during the precise sleep, which does not watch
// it, returns the context's error and leaves the queue, not a slot.
func TestContextEndingDuringThePreciseSleepTakesNoSlot(t *testing.T) {
	if precise == 0 {
		t.Skip("no precise sleep here: Go's timers wake on time on this system")
	}
	clock, p := newClockedPacer()
	p.Engage(1000)
	if _, err := p.Wait(context.Background(), NoMaxWait); err != nil { // the free slot
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.sleep = func(d time.Duration) {
		cancel()
		clock.Add(d + time.Millisecond)
	}
	if _, err := p.Wait(ctx, NoMaxWait); !stderrors.Is(err, context.Canceled) {
		t.Fatalf("Wait = %v, want context.Canceled", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue) != 0 {
		t.Fatalf("%d waiters left in the queue, want 0", len(p.queue))
	}
}
