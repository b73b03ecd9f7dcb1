package core

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	memberplatform "github.com/memberplatform/memberplatform-go"
)

// Several hot resources judged together (resources.go, judgeHot), on a
// fake clock: throttles concentrated on a few minority resources are
// theirs; an area's limit, spread over the calls, still reaches the pacer.

// throttleTally counts, from a step on, the throttles kept from the pacer
// and those fed to it.
type throttleTally struct{ kept, fed int }

// runCalls answers n calls 5 ms apart, the i-th of user(i), throttled or
// not, and tallies the throttles from the from-th call on.
func runCalls(r *ResourceThrottles, clk interface{ Add(time.Duration) }, n, from int, call func(i int) (string, bool)) throttleTally {
	var t throttleTally
	for i := range n {
		clk.Add(5 * time.Millisecond)
		user, throttled := call(i)
		kept := answerCall(r, user, throttled)
		switch {
		case i < from || !throttled:
		case kept:
			t.kept++
		default:
			t.fed++
		}
	}
	return t
}

// hotUsers returns a call pattern: n hot users, each 1 call in every and
// every one of its calls throttled, the others to 50 users, admitted.
func hotUsers(n, every int) func(int) (string, bool) {
	return func(i int) (string, bool) {
		if j := i % every; j < n {
			return fmt.Sprint("hot", j), true
		}
		return fmt.Sprint("u", i%50), false
	}
}

// Two, three and five hot users, together 1 call in 5, each with an equal
// share of the throttles: once each has made its calls, every throttle is
// its resource's own, and each is counted.
func TestThrottlesOfAFewHotResourcesAreTheirOwn(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		r, clk := newTestResources()
		got := runCalls(r, clk, 2000, 1000, hotUsers(n, 5*n))
		if got.fed != 0 || got.kept < 190 || r.Own() != n {
			t.Errorf("%d hot users: %d throttles fed to the pacer (0), %d kept (about 200), Own() = %d (%d)", n, got.fed, got.kept, r.Own(), n)
		}
	}
}

// Two users throttled on every call but together 2 calls in 5, more than
// a third of the area's: no minority, their throttles go to the pacer.
func TestHotResourcesThatAreMostCallsGoToThePacer(t *testing.T) {
	r, clk := newTestResources()
	got := runCalls(r, clk, 2000, 0, hotUsers(2, 5))
	if got.kept > 1 || got.fed < 790 || r.Own() != 0 {
		t.Fatalf("2 hot users with 40%% of the calls: %d throttles kept from the pacer (at most the first), %d fed (about 800), Own() = %d (0)", got.kept, got.fed, r.Own())
	}
}

// More hot users than maxHot, each throttled as often: no few of them have
// the area's throttles, which go to the pacer as an area's limit.
func TestMoreHotResourcesThanMaxHotGoToThePacer(t *testing.T) {
	r, clk := newTestResources()
	n := 2 * maxHot
	got := runCalls(r, clk, 4000, 2000, hotUsers(n, 4*n))
	if got.kept != 0 || got.fed < 490 {
		t.Fatalf("%d hot users: %d throttles kept from the pacer (0), %d fed (about 500)", n, got.kept, got.fed)
	}
}

// An area's limit over 13 users, every third call throttled (each user in
// turn: 13 and 3 share no factor): any few of them that have half of the
// throttles have about half of the calls, no minority; the pacer is told
// of every throttle.
func TestAnAreaLimitOverAFewUsersGoesToThePacer(t *testing.T) {
	r, clk := newTestResources()
	got := runCalls(r, clk, 2000, 0, func(i int) (string, bool) { return fmt.Sprint("u", i%13), i%3 == 0 })
	if got.kept != 0 || got.fed != 667 || r.Own() != 0 {
		t.Fatalf("area limit over 13 users: %d throttles kept from the pacer (0), %d fed (667), Own() = %d (0)", got.kept, got.fed, r.Own())
	}
}

// An area's limit over 1,000 users, one call in 20 throttled and its
// retry throttled again: one call's throttles do not make a hot resource,
// whatever the share of the throttles they have.
func TestRetriesOfOneCallDoNotMakeAHotResource(t *testing.T) {
	r, clk := newTestResources()
	var kept, fed int
	for i := range 4000 {
		clk.Add(5 * time.Millisecond)
		user := fmt.Sprint("u", i%1000)
		throttled := i%20 == 0
		for attempt := range map[bool]int{true: 3, false: 1}[throttled] {
			if r.Answered(http.MethodPut, "/users/"+user, attempt == 0, Sent{}, outcome(throttled), 0) {
				kept++
			} else if throttled {
				fed++
			}
		}
	}
	if kept != 0 || fed != 600 {
		t.Fatalf("area limit over 1,000 users, each throttled call retried twice: %d throttles kept from the pacer (0), %d fed (600)", kept, fed)
	}
}

// Two hot users, then an area limit over every user: the other users'
// throttles go to the pacer at once.
func TestAnAreaLimitBesideTwoHotUsersGoesToThePacer(t *testing.T) {
	r, clk := newTestResources()
	runCalls(r, clk, 1000, 0, hotUsers(2, 10))
	if r.Own() != 2 {
		t.Fatalf("Own() = %d before the area's limit, want 2", r.Own())
	}
	hot := hotUsers(2, 10)
	got := runCalls(r, clk, 1000, 0, func(i int) (string, bool) {
		if user, isHot := hot(i); isHot {
			return user, false // not counted below: only the others' throttles are
		}
		return fmt.Sprint("u", i%50), i%2 == 1
	})
	if got.kept != 0 {
		t.Fatalf("area limit beside two hot users: %d of the others' throttles kept from the pacer, want none (%d fed)", got.kept, got.fed)
	}
}

// Through the pipeline: two hot paths throttled beside healthy ones leave
// the area's pacer dormant, and State.ThrottledResourcesOf counts both.
func TestTwoHotResourcesLeaveTheAreaPacerDormant(t *testing.T) {
	c, p, obs := newHotPathClient(t, true, "/hot0", "/hot1")
	for i := range 100 {
		call := rtCall(rtPutOp, nil)
		if j := i % 10; j >= 8 { // after other calls: hot keys in a busy area
			call.PathParams[0] = fmt.Sprint("hot", j-8)
		}
		_ = c.do(context.Background(), call)
	}
	if _, engaged := p.Rate(); engaged {
		t.Fatal("two hot resources engaged the area's pacer")
	}
	if n, ok := obs.state.ThrottledResourcesOf(memberplatform.AreaOther); !ok || n != 2 {
		t.Fatalf("ThrottledResourcesOf = %d, %v; want 2, true", n, ok)
	}
}

// An area's limit starting to bind beside two hot users (1 call in 10
// each, every one throttled) throttles a few percent of the others' calls
// at random: those throttles reach the pacer. A user with a throttle or
// two does not join the hot ones (it does not rank among the resources
// throttled most), and is not counted as throttled on its own.
func TestAreaLimitBindingBesideHotUsersReachesThePacer(t *testing.T) {
	for _, pct := range []int{2, 4, 6} {
		r, clk := newTestResources()
		rng := rand.New(rand.NewPCG(1, uint64(pct)))
		var kept, fed int
		for i := range 4000 {
			clk.Add(5 * time.Millisecond)
			user, throttled := fmt.Sprint("u", i%50), rng.IntN(100) < pct
			if j := i % 10; j < 2 {
				user, throttled = fmt.Sprint("hot", j), true
			}
			k := answerCall(r, user, throttled)
			if i >= 1000 && throttled && strings.HasPrefix(user, "u") {
				if k {
					kept++
				} else {
					fed++
				}
			}
		}
		if kept > fed/10 || r.Own() > 2 {
			t.Errorf("others throttled at %d%% beside 2 hot users: %d of their throttles kept from the pacer, %d fed (want at most a tenth kept); Own() = %d (at most the 2 hot users)", pct, kept, fed, r.Own())
		}
	}
}
