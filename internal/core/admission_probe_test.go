package core

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/fakeclock"
)

// admitConcurrently asks for first attempts of ops from 32 goroutines at
// once, 50 each, and returns how many were admitted.
func admitConcurrently(a *Admission, ops ...string) int {
	var admitted atomic.Int32
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			for i := range 50 {
				if _, refused := a.admitOp(ops[(g+i)%len(ops)], true); !refused {
					admitted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return int(admitted.Load())
}

// Under concurrency, an operation that refuses sends exactly one probe per
// AdmissionProbeInterval, and an operation of an area that is down exactly
// one per interval times the number of operations failing (about one per
// interval for the area), however many callers it serves: no stampede
// when the interval ends.
func TestAdmissionProbesUnderConcurrency(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	a := testAdmission(clk, &draw)
	feedOp(a, failingOp, 30, 0)
	feedOp(a, healthyOp, 0, 30) // served: the area is not down
	for interval := range 3 {
		if n := admitConcurrently(a, failingOp); n != 1 {
			t.Fatalf("interval %d: %d probes of the failing operation, want 1", interval, n)
		}
		clk.Add(AdmissionProbeInterval)
		feedOp(a, healthyOp, 0, 1)
	}

	a = testAdmission(clk, &draw)
	ops := make([]string, 8)
	for i := range ops {
		ops[i] = "accessmgmt.Op" + strconv.Itoa(i)
		feedOp(a, ops[i], 30, 0)
	}
	clk.Add(admissionDownAfter)
	for turn := range 3 {
		probes := 0
		for range len(ops) {
			probes += admitConcurrently(a, ops...)
			for _, op := range ops { // the probes failed
				feedOp(a, op, 1, 0)
			}
			clk.Add(AdmissionProbeInterval)
		}
		if probes != len(ops) {
			t.Fatalf("down area of %d operations, turn %d: %d probes over %d intervals, want one per operation", len(ops), turn, probes, len(ops))
		}
	}
}

// A probe whose caller gives up (its answer uncounted) holds its slot only
// for the interval: the next probe goes out one interval later, and the
// operation reopens when that one is answered.
func TestAdmissionCancelledProbeFreesItsSlot(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	a := testAdmission(clk, &draw)
	feedOp(a, failingOp, 30, 0)
	feedOp(a, healthyOp, 0, 30)
	if _, refused := a.admitOp(failingOp, true); refused {
		t.Fatal("the first probe refused")
	}
	a.answeredOp(failingOp, uncounted, 0, 0) // its context was cancelled
	if _, refused := a.admitOp(failingOp, true); !refused {
		t.Fatal("a second probe within the interval")
	}
	clk.Add(AdmissionProbeInterval)
	if _, refused := a.admitOp(failingOp, true); refused {
		t.Fatal("no probe an interval after the cancelled one")
	}
	a.answeredOp(failingOp, accepted, 0, 0)
	for range 20 {
		if _, refused := a.admitOp(failingOp, false); refused {
			t.Fatal("refused after the probe was answered")
		}
	}
}

// An operation failing whole at 1,000 calls/s, its area down (nothing else
// is called), and a sibling called once a minute, never answered while
// the area counted (so shed with the area): each of the sibling's calls
// goes out as a probe and is served; the failing operation's probes do
// not take every turn.
func TestAdmissionRareSiblingProbesBesideAHotFailingOne(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	a := testAdmission(clk, &draw)
	start := clk.Now()
	for ms := range 5 * 60 * 1000 { // 5 minutes
		now := time.Duration(ms) * time.Millisecond
		clk.Set(start.Add(now))
		if _, refused := a.admitOp(failingOp, true); !refused {
			a.answeredOp(failingOp, failedUnavailable, http.StatusInternalServerError, 0)
		}
		if ms%60000 == 30000 {
			if _, refused := a.admitOp(healthyOp, true); refused {
				t.Fatalf("the rare sibling's call at %v refused", now)
			}
			a.answeredOp(healthyOp, accepted, 0, 0)
		}
	}
}

// In a down area of many operations, a refusal's RetryAfter stays within a
// probe interval, although the operation's own turn may be further: the
// area probes about once per interval, and one probe answered reopens it.
func TestAdmissionDownRefusalWaitIsAnInterval(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	a := testAdmission(clk, &draw)
	for i := range 20 {
		feedOp(a, "accessmgmt.Op"+strconv.Itoa(i), 30, 0)
	}
	clk.Add(admissionDownAfter)
	a.admitOp("accessmgmt.Op0", true) // its probe: its next turn is 2 s away
	clk.Add(AdmissionProbeInterval)
	r, refused := a.admitOp("accessmgmt.Op0", true)
	if !refused || r.wait > AdmissionProbeInterval {
		t.Fatalf("refused %v, wait %v; want a refusal within a probe interval", refused, r.wait)
	}
}
