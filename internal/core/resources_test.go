package core

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/internal/fakeclock"
	"github.com/memberplatform/memberplatform-go/internal/pacer"
	"github.com/memberplatform/memberplatform-go/observe"
)

// The attribution of throttles to one resource (resources.go), on a fake
// clock: which throttles the area's pacer is told of.

func newTestResources() (*ResourceThrottles, *fakeclock.Clock) {
	clk := fakeclock.New()
	r := NewResourceThrottles()
	r.now = clk.Now
	return r, clk
}

// answerCall records a call of user, its first attempt throttled or not,
// and returns whether a throttle was kept from the pacer.
func answerCall(r *ResourceThrottles, user string, throttled bool) bool {
	return r.Answered(http.MethodPut, "/users/"+user, true, Sent{}, outcome(throttled), time.Second)
}

// outcome is an answer throttled or admitted.
func outcome(throttled bool) Outcome {
	if throttled {
		return Throttled
	}
	return Admitted
}

// A hot user, 1 call in 10, every one of its calls throttled while the
// other users' are admitted: its throttles are its own once its share is
// known, and stay so; presumed so before, the area having made other
// calls lately.
func TestThrottlesOfAHotMinorityResourceAreItsOwn(t *testing.T) {
	r, clk := newTestResources()
	var fed, own int
	for i := range 400 {
		clk.Add(5 * time.Millisecond)
		if i%10 != 9 {
			answerCall(r, fmt.Sprint("u", i%50), false)
			continue
		}
		if answerCall(r, "hot", true) {
			own++
		} else {
			fed++
		}
	}
	if fed != 0 || own != 40 || r.Own() != 1 {
		t.Fatalf("hot user: %d throttles fed to the pacer, %d its own, Own() = %d; want 0, 40, 1", fed, own, r.Own())
	}
}

// Every user of the area throttled (the provider's limit is the area's):
// the throttles are spread, none is concentrated, the pacer is told of
// every one.
func TestThrottlesSpreadOverTheAreaGoToThePacer(t *testing.T) {
	r, clk := newTestResources()
	var fed, own int
	for i := range 400 {
		clk.Add(5 * time.Millisecond)
		throttled := i%3 == 0
		kept := answerCall(r, fmt.Sprint("u", i%40), throttled)
		switch {
		case throttled && kept:
			own++
		case throttled:
			fed++
		}
	}
	if own != 0 || fed != 134 || r.Own() != 0 {
		t.Fatalf("area-wide limit: %d throttles kept from the pacer (0), %d fed (134), Own() = %d (0)", own, fed, r.Own())
	}
}

// One resource that is most of the area's calls (a batch on one object, a
// strict limiter): no minority, its throttles go to the pacer once 3 of
// its calls were counted.
func TestThrottlesOfTheMajorityResourceGoToThePacer(t *testing.T) {
	r, clk := newTestResources()
	var kept []int
	for i := range 100 {
		clk.Add(10 * time.Millisecond)
		if answerCall(r, "user_1", i%2 == 0) {
			kept = append(kept, i)
		}
	}
	if len(kept) != 0 {
		t.Fatalf("one resource, every other call throttled: throttles %v kept from the pacer, want none", kept)
	}
	// Two resources half and half: neither is a minority.
	r, clk = newTestResources()
	n := 0
	for i := range 100 {
		clk.Add(10 * time.Millisecond)
		if answerCall(r, fmt.Sprint("user_", i%2), i%4 < 2) {
			n++
		}
	}
	if n != 0 {
		t.Fatalf("two resources, half the calls each: %d throttles kept from the pacer, want none", n)
	}
}

// A hot user whose throttles were its own, then a limit on the whole area:
// the other users' throttles go to the pacer at once, and the hot user's
// too once they are no longer most of the area's.
func TestAnAreaLimitBesideAHotUserGoesToThePacer(t *testing.T) {
	r, clk := newTestResources()
	for i := range 200 {
		clk.Add(5 * time.Millisecond)
		answerCall(r, map[bool]string{true: "hot", false: fmt.Sprint("u", i%50)}[i%10 == 0], i%10 == 0)
	}
	if r.Own() != 1 {
		t.Fatalf("Own() = %d before the area's limit, want 1", r.Own())
	}
	var othersKept, hotFed int
	for i := range 400 {
		clk.Add(5 * time.Millisecond)
		hot := i%10 == 0
		user := fmt.Sprint("u", i%50)
		if hot {
			user = "hot"
		}
		kept := answerCall(r, user, hot || i%2 == 1)
		switch {
		case !hot && i%2 == 1 && kept:
			othersKept++
		case hot && !kept && i >= 200:
			hotFed++
		}
	}
	if othersKept != 0 || hotFed != 20 {
		t.Fatalf("area limit beside a hot user: %d other users' throttles kept from the pacer (0); %d of the hot user's last 20 fed (20)", othersKept, hotFed)
	}
}

// A lone call's throttle goes to the pacer (its share is not known: the
// area is paced as before); its resource's calls are not refused.
func TestALoneThrottleGoesToThePacer(t *testing.T) {
	r, _ := newTestResources()
	if answerCall(r, "user_1", true) {
		t.Fatal("a lone call's throttle was kept from the pacer; want the pacer told until its share is known")
	}
	if _, refused := r.Refuse(http.MethodPut, "/users/user_1"); refused {
		t.Fatal("a call of a resource whose share is not known was refused")
	}
}

// Memory is bounded: at most maxResources are tracked, and a resource is
// forgotten resourceExpiry after its last throttle, when the tracker goes
// back to costing an atomic load.
func TestTrackedResourcesAreBoundedAndExpire(t *testing.T) {
	r, clk := newTestResources()
	for i := range 3 * maxResources {
		clk.Add(time.Millisecond)
		answerCall(r, fmt.Sprint("u", i), true)
	}
	if n := len(r.resources); n != maxResources {
		t.Fatalf("%d resources tracked, want at most %d", n, maxResources)
	}
	clk.Add(resourceExpiry)
	answerCall(r, "someone", false)
	if n := len(r.resources); n != 0 || r.tracked.Load() || r.Own() != 0 {
		t.Fatalf("after %v without a throttle: %d tracked (0), tracked = %v, Own() = %d", resourceExpiry, n, r.tracked.Load(), r.Own())
	}
}

// hotTracker returns a tracker that judged "hot" a minority resource
// throttled 1 s at a time, 10 throttles a second.
func hotTracker(t *testing.T) (*ResourceThrottles, *fakeclock.Clock) {
	t.Helper()
	r, clk := newTestResources()
	for i := range 1000 {
		clk.Add(10 * time.Millisecond)
		answerCall(r, map[bool]string{true: "hot", false: fmt.Sprint("u", i%50)}[i%10 == 0], i%10 == 0)
	}
	if r.Own() != 1 {
		t.Fatalf("Own() = %d, want the hot user's throttles its own", r.Own())
	}
	return r, clk
}

// Retries of a resource throttled together are placed one after another,
// never before their wait, at the interval between its throttles (10 a
// second: 100 ms), so that as many as it had throttles spread over the
// Retry-After; one that would go after the deadline keeps its wait.
func TestRetriesOfOneResourceAreSpacedAfterTheirWait(t *testing.T) {
	r, clk := hotTracker(t)
	start := clk.Now()
	var at []time.Time
	for range 5 {
		w := r.SpaceRetry(http.MethodPut, "/users/hot", time.Second, time.Time{})
		if w < time.Second {
			t.Fatalf("a retry placed %v away, before its 1 s Retry-After", w)
		}
		at = append(at, start.Add(w))
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i].Sub(at[i-1]); gap < 90*time.Millisecond || gap > 110*time.Millisecond {
			t.Fatalf("retries at %v apart, want about 100 ms", gap)
		}
	}
	if w := r.SpaceRetry(http.MethodPut, "/users/hot", time.Second, start.Add(1450*time.Millisecond)); w != time.Second {
		t.Fatalf("a retry whose place is after the deadline waits %v, want its 1 s", w)
	}
	if w := r.SpaceRetry(http.MethodPut, "/users/u1", time.Second, time.Time{}); w != time.Second {
		t.Fatalf("another user's retry waits %v, want its 1 s: only own throttles are spaced", w)
	}
}

// A new call of the hot resource is refused while its retries queued ahead
// reach past its Retry-After, and sent again once they do not.
func TestNewCallsOfAnOwnResourceAreRefusedWhileItsRetriesQueue(t *testing.T) {
	r, clk := hotTracker(t)
	if _, refused := r.Refuse(http.MethodPut, "/users/hot"); refused {
		t.Fatal("refused with no retry queued")
	}
	// One retry whose jitter puts it past the Retry-After is no queue.
	r.SpaceRetry(http.MethodPut, "/users/hot", 1300*time.Millisecond, time.Time{})
	if _, refused := r.Refuse(http.MethodPut, "/users/hot"); refused {
		t.Fatal("refused behind a single retry")
	}
	for range 15 { // 15 more, 100 ms apart, up to 1 s + 1 s
		r.SpaceRetry(http.MethodPut, "/users/hot", time.Second, time.Time{})
	}
	ahead, refused := r.Refuse(http.MethodPut, "/users/hot")
	if !refused || ahead < 1900*time.Millisecond || ahead > 2*time.Second {
		t.Fatalf("Refuse = %v, %v; want refused, about 2 s ahead (1 s and one more Retry-After at most)", ahead, refused)
	}
	if _, refused := r.Refuse(http.MethodPut, "/users/u7"); refused {
		t.Fatal("another user's call was refused")
	}
	clk.Add(1900 * time.Millisecond)
	if _, refused := r.Refuse(http.MethodPut, "/users/hot"); refused {
		t.Fatal("refused once the queue reaches less than the Retry-After")
	}
}

// stateReader keeps the State a client hands its observer.
type stateReader struct {
	observe.Nop
	state *observe.State
}

func (r *stateReader) ObserveState(s *observe.State) { r.state = s }

// Through the pipeline: a hot path throttled beside healthy ones leaves
// the area's pacer dormant, and State.ThrottledResourcesOf counts it;
// without the tracker the pacer engages. Calls are grouped by the path
// requested, not by their Operation (client.Execute makes one per call).
func TestAHotResourceLeavesTheAreaPacerDormant(t *testing.T) {
	for _, tracked := range []bool{true, false} {
		c, p, obs := newHotPathClient(t, tracked, "/hot")
		for i := range 60 {
			op := *rtPutOp // a fresh operation per call, as client.Execute's: grouped by the path requested
			call := rtCall(&op, nil)
			if i%10 == 9 { // after other calls: a hot key in a busy area
				call.PathParams[0] = "hot"
			}
			_ = c.do(context.Background(), call)
		}
		if _, engaged := p.Rate(); engaged == tracked {
			t.Fatalf("tracked %v: the area's pacer engaged = %v", tracked, engaged)
		}
		if n, ok := obs.state.ThrottledResourcesOf(memberplatform.AreaOther); ok != tracked || n != map[bool]int{true: 1}[tracked] {
			t.Fatalf("tracked %v: ThrottledResourcesOf = %d, %v", tracked, n, ok)
		}
	}
}

// newHotPathClient returns a client, its area pacer and its state reader,
// against a server that throttles (429, Retry-After-Ms: 1) the paths with
// one of the suffixes hot and admits the rest; without its resource
// tracker unless tracked. No retries: every call is one attempt.
func newHotPathClient(t *testing.T, tracked bool, hot ...string) (*Client, *pacer.Pacer, *stateReader) {
	t.Helper()
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		for _, h := range hot {
			if strings.HasSuffix(r.URL.Path, h) {
				w.Header().Set("Retry-After-Ms", "1")
				rtJSON(w, 429, `{}`)
				return
			}
		}
		rtJSON(w, 200, `{}`)
	})
	p := pacer.New()
	obs := &stateReader{}
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		other(s).Pacer, s.Retry.MaxRetries, s.Observer = p, 0, obs
		if !tracked {
			other(s).Resources = nil
		}
	})
	return c, p, obs
}

// One resource that is all of a busy area's calls (a strict limiter on
// one object): its first throttle, after many admitted calls, is presumed
// a minority's and kept from the pacer; its calls are not refused on that
// presumption, and once 3 are counted its throttles go to the pacer.
func TestAPresumedMinorityIsNotRefusedAndEndsWithItsCalls(t *testing.T) {
	r, clk := newTestResources()
	for range 50 {
		clk.Add(10 * time.Millisecond)
		answerCall(r, "user_1", false)
	}
	if !answerCall(r, "user_1", true) {
		t.Fatal("the first throttle in a busy area went to the pacer; want it presumed a minority's")
	}
	for range 60 {
		r.SpaceRetry(http.MethodPut, "/users/user_1", time.Second, time.Time{})
	}
	if _, refused := r.Refuse(http.MethodPut, "/users/user_1"); refused {
		t.Fatal("a call refused on a presumption: its calls would never be counted")
	}
	var kept int
	for i := range 20 {
		clk.Add(10 * time.Millisecond)
		if answerCall(r, "user_1", i%2 == 0) {
			kept++
		}
	}
	if kept > 1 || r.Own() != 0 {
		t.Fatalf("%d of the next 10 throttles kept from the pacer (≤ 1, before 3 calls are counted), Own() = %d (0)", kept, r.Own())
	}
}

// Spacing adds at most the resource's Retry-After to a retry's wait: a
// retry behind a queue longer than that keeps its own wait.
func TestSpacingAddsAtMostARetryAfter(t *testing.T) {
	r, _ := hotTracker(t)
	var longest time.Duration
	for range 60 { // 60 retries 100 ms apart would reach 7 s
		longest = max(longest, r.SpaceRetry(http.MethodPut, "/users/hot", time.Second, time.Time{}))
	}
	if longest > 2*time.Second {
		t.Fatalf("a retry placed %v away, want at most its 1 s wait and one more Retry-After", longest)
	}
}
