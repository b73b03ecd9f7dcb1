package core

import (
	"cmp"
	"hash/maphash"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/pacer"
)

// Throttles that belong to one resource (a hot user, a locked object): a
// provider that limits each user, or each object, throttles the calls of
// one of them whatever the rate of the rest. Slowing the whole area for
// them cures nothing: the area's pacer would cut, find the throttles still
// there, and cut again, while the resource's calls are limited by their
// own Retry-After anyway. So an area keeps, beside its pacer, which
// resources its recent throttles hit, and a throttle is the resource's
// own, kept from the pacer, while both hold:
//
//   - Concentrated: the resource had at least half of the area's recent
//     throttles, and the rest of the area's calls are nearly all admitted
//     (the other resources' recent throttles are at most 5% of the area's
//     recent calls); recent counts weigh less as they age, by
//     exp(-age/resourceDecay).
//   - A minority: since the resource's first throttle, its calls are at
//     most a third of the area's (calls counted once, at the first answer
//     of a send; the counts halve every resourceHalving, so the share is
//     the recent one). Until that share is known (3 calls of the resource
//     or 6 of the area since its first throttle) it is presumed a minority
//     when the area made at least 6 calls over the second before its first
//     throttle, so that a hot key's first throttles do not engage the
//     pacer; otherwise the pacer is told, as before: a lone call's 429
//     paces its area as it did.
//
// Several hot resources (two hot users, each with half of the throttles)
// are judged together (judgeHot): a throttle is its resource's own when
// the resource ranks among the resources throttled most (at most maxHot,
// each with minHotCalls recent calls and at least twice its share of the
// calls in throttles), which together have at least half of the area's
// recent throttles, the rest of the area's calls nearly all admitted as
// above, and at most a third of the area's calls.
//
// When every key of the area is throttled (the provider's limit is the
// area's) the throttles are spread over the keys in proportion to their
// calls: no few keys have most of them with a minority of the calls, none
// is concentrated and the pacer acts as before; so it does when one key
// is most of the area's calls (a batch on one object): it is no minority.
//
// A resource whose throttles are its own is paced on its own: its retries
// go after their Retry-After, and one after another, spaced by the
// interval between its recent throttles (SpaceRetry), so that calls
// throttled together do not come back together but spread over the
// Retry-After, as many retries as throttles in it (a quarter of the
// interval bunched them in a quarter of each second: the tokens of the
// other three went unused); without a jitter (retryafter.go), which the
// spacing replaces; and while at least 4 retries are queued so and reach past its
// Retry-After (at least 1 s), which they fill with what it admits, its new calls are
// refused at once, unsent (Refuse), with that distance as their
// RetryAfter; they count as its calls, so a resource whose calls become
// most of the area's goes back to the pacer. The first attempt made
// before its next admission is due waits for it (Hold, resourcehold.go).
//
// A resource is the method and the path actually requested (path
// parameters filled and escaped; the query aside), so a client.Execute
// call is grouped by its own path. Memory is bounded: at most
// maxResources are tracked, the least recently throttled making room, and
// one is forgotten resourceExpiry after its last throttle. With none
// tracked an answer costs a clock read and the area's call count.

// The tracker's settings.
const (
	resourceDecay     = time.Second     // the time constant of the throttle counts
	resourceHalving   = 2 * time.Second // the call counts halve this often
	resourceExpiry    = 10 * time.Second
	maxResources      = 64
	minorityShare     = 1.0 / 3 // at most this share of the area's calls is a minority
	concentratedShare = 0.5     // at least this share of the area's recent throttles is concentrated
	minResourceCalls  = 3       // a resource this many calls in is judged on its share
	minAreaCalls      = 6       // as is one whose area made this many since its first throttle
	restTolerance     = 0.05    // the rest of the area's recent throttles, per recent call, that it tolerates
	minPending        = 4       // a resource with fewer retries queued is not refused on
	maxPending        = 256     // the retries queued a resource keeps track of
	retrySpacing      = 1.0     // a resource's retries are spaced by this share of the interval between its throttles
	maxHot            = 8       // at most this many resources' throttles are their own together
	minHotCalls       = 2       // a resource judged as one of several hot ones made this many calls
	// hotOutOfProportion is how many times its share of the area's calls
	// a hot resource's share of the throttles is at least: an area's limit
	// throttles each resource about in proportion to its calls.
	hotOutOfProportion = 2
)

// ResourceThrottles attributes one area's throttles to the resources they
// hit. It is safe for concurrent use; use NewResourceThrottles.
type ResourceThrottles struct {
	now     func() time.Time
	seed    maphash.Seed
	recent  pacer.Meter // the area's calls over the last second, always counted
	tracked atomic.Bool // some resource is tracked: its calls are counted

	mu        sync.Mutex
	calls     float64 // the area's calls counted while tracking, never halved
	throttles decaying
	resources map[uint64]*resourceCounts
	sweepAt   time.Time        // when expired resources are next looked for
	ranked    []rankedResource // judgeHot's, kept to spare an allocation
	own       atomic.Int64
}

// resourceCounts is what the tracker keeps of one resource.
type resourceCounts struct {
	calls, areaCalls float64 // the resource's and the area's calls since its first throttle, halved together
	areaMark         float64 // the area's count when areaCalls was last brought up to it
	halved           time.Time
	throttles        decaying
	last             time.Time     // its last throttle
	own              bool          // its last throttle was attributed to it
	retryAfter       time.Duration // its last throttle's Retry-After, or 0
	presumed         bool          // a minority until its share is known
	retryAt          time.Time     // when the last retry SpaceRetry placed goes
	pending          []time.Time   // when the retries it placed go, in order, at most maxPending
	admissions                     // for Hold (resourcehold.go)
}

// decaying is a count whose past counts less, by exp(-age/resourceDecay).
type decaying struct {
	v  float64
	at time.Time
}

func (d *decaying) value(now time.Time) float64 {
	return d.v * math.Exp(-max(now.Sub(d.at), 0).Seconds()/resourceDecay.Seconds())
}

func (d *decaying) add(now time.Time) {
	d.v, d.at = d.value(now)+1, now
}

// NewResourceThrottles returns a tracker with nothing tracked.
func NewResourceThrottles() *ResourceThrottles {
	return &ResourceThrottles{now: time.Now, seed: maphash.MakeSeed(), resources: map[uint64]*resourceCounts{}}
}

// Own returns how many resources' throttles are currently attributed to
// them, kept from the area's pacer.
func (t *ResourceThrottles) Own() int { return int(t.own.Load()) }

// key identifies a resource: the method and the escaped path requested.
func (t *ResourceThrottles) key(method, path string) uint64 {
	var h maphash.Hash
	h.SetSeed(t.seed)
	h.WriteString(method)
	h.WriteByte(' ')
	h.WriteString(path)
	return h.Sum64()
}

// Outcome is what an answer says of its resource's rate (Answered).
type Outcome uint8

// Outcomes.
const (
	Unanswered Outcome = iota // no answer, or one that says nothing of the rate (a 5xx)
	Admitted                  // let through: a 2xx, or an error response other than a throttle or a 5xx
	Throttled                 // rate limited
)

// Answered records an answer to an attempt of method and path; first says
// it was the first attempt of its send (the call is counted), sent when it
// went (Hold's), o what the answer says. It reports whether a throttle is
// the resource's own, to be kept from the area's pacer (false for any
// other answer). An admitted answer of a tracked resource, and a held
// attempt's throttle, are noted for Hold.
func (t *ResourceThrottles) Answered(method, path string, first bool, sent Sent, o Outcome, retryAfter time.Duration) bool {
	throttled := o == Throttled
	if !throttled && !first && (o != Admitted || !t.tracked.Load()) {
		return false
	}
	now := t.now()
	if first {
		t.recent.Add(now)
	}
	if !throttled && !t.tracked.Load() {
		return false
	}
	k := t.key(method, path)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sweep(now)
	r := t.resources[k]
	if first {
		t.calls++
		if r != nil {
			r.update(t.calls, now)
			r.calls++
		}
	}
	if !throttled {
		if r != nil && o == Admitted {
			r.admitted(now, sent)
		}
		return false
	}
	t.throttles.add(now)
	if r == nil {
		r = t.track(k, now, first)
		// The area made other calls lately: the resource is presumed a
		// minority until its share is known.
		r.presumed = t.recent.Rate(now) >= minAreaCalls
	}
	r.update(t.calls, now)
	r.throttles.add(now)
	r.last, r.retryAfter = now, retryAfter
	if sent.Held && sent.At.Equal(r.heldFor) && r.admitAt.Equal(r.heldAfter) {
		r.n = 0 // held too short, nothing admitted since: the provider's spacing is longer
	}
	return t.rejudge(r, now)
}

// rejudge judges r again, noting the outcome, and returns it. The caller
// holds t.mu.
func (t *ResourceThrottles) rejudge(r *resourceCounts, now time.Time) bool {
	own := t.judge(r, now)
	if own != r.own {
		r.own = own
		if own {
			t.own.Add(1)
		} else {
			t.own.Add(-1)
		}
	}
	return own
}

// SpaceRetry returns when a retry of method and path, whose throttle was
// its resource's own, goes: after wait (the Retry-After, unjittered), and
// at least the recent interval between the resource's throttles after the
// retry placed before it, so that its calls throttled together come back
// one after another, at the pace they were throttled, rather than
// together: a provider with a burst of 1 admits one of a bunch. A
// retry that would be placed after deadline (zero: none), or more than the
// resource's Retry-After (at least 1 s) after wait, keeps wait.
func (t *ResourceThrottles) SpaceRetry(method, path string, wait time.Duration, deadline time.Time) time.Duration {
	k := t.key(method, path)
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.resources[k]
	if r == nil || !t.rejudge(r, now) {
		return wait
	}
	perSecond := r.throttles.value(now) / resourceDecay.Seconds()
	gap := time.Duration(retrySpacing / max(perSecond, 1) * float64(time.Second))
	slot := now.Add(wait)
	if next := r.retryAt.Add(gap); next.After(slot) {
		slot = next
	}
	if !deadline.IsZero() && slot.After(deadline) || slot.Sub(now) > wait+max(r.retryAfter, time.Second) {
		return wait
	}
	r.retryAt = slot
	r.pending = append(r.pending, slot)
	if len(r.pending) > maxPending {
		r.pending = r.pending[len(r.pending)-maxPending:]
	}
	return slot.Sub(now)
}

// track starts counting a resource at its first throttle, the call that
// got it counted as its own. The caller holds t.mu.
func (t *ResourceThrottles) track(k uint64, now time.Time, counted bool) *resourceCounts {
	if len(t.resources) >= maxResources {
		var oldest uint64
		var at time.Time
		for key, r := range t.resources {
			if at.IsZero() || r.last.Before(at) {
				oldest, at = key, r.last
			}
		}
		t.forget(oldest)
	}
	r := &resourceCounts{areaMark: t.calls, halved: now}
	if counted {
		r.calls, r.areaCalls = 1, 1
	}
	t.resources[k] = r
	t.tracked.Store(true)
	return r
}

// update brings r's area count up to the area's, then halves both counts
// for every resourceHalving since they were last halved.
func (r *resourceCounts) update(areaCalls float64, now time.Time) {
	r.areaCalls += areaCalls - r.areaMark
	r.areaMark = areaCalls
	if n := now.Sub(r.halved) / resourceHalving; n > 0 {
		f := math.Exp2(-float64(n))
		r.calls, r.areaCalls = r.calls*f, r.areaCalls*f
		r.halved = r.halved.Add(n * resourceHalving)
	}
}

// judge reports whether r's throttles are its own. The caller holds t.mu.
func (t *ResourceThrottles) judge(r *resourceCounts, now time.Time) bool {
	mine, all := r.throttles.value(now), t.throttles.value(now)
	tolerated := restTolerance * t.recent.Rate(now)
	if mine < concentratedShare*all || all-mine > tolerated {
		return t.judgeHot(r, now, all, tolerated)
	}
	if !r.known() {
		return r.presumed
	}
	return r.calls <= minorityShare*r.areaCalls
}

// judgeHot reports whether r's throttles are its own as one of a few hot
// resources, each limited on its own (two hot users, each with half of the
// throttles): r is one of the resources throttled most, at most maxHot,
// which together have at least half of the area's recent throttles and the rest
// of the area's are at most restTolerance of its recent calls, while their
// calls together are at most a third of the area's. An area's limit
// throttles calls in proportion to their share, so a few resources cannot
// have most of its throttles with a minority of the calls; and each of
// them, r too, has at least twice its share of the calls in throttles
// (hotOutOfProportion), so that a user with a throttle or two of that
// limit beside hot ones is not one of them. Each must count minHotCalls
// recent calls (calls since its first throttle, halved every
// resourceHalving): in a limit spread over many resources, one call's
// retries do not make a hot resource. The caller holds t.mu.
func (t *ResourceThrottles) judgeHot(r *resourceCounts, now time.Time, all, tolerated float64) bool {
	t.ranked = t.ranked[:0]
	for _, o := range t.resources {
		o.update(t.calls, now) // (before its calls are read: it halves them)
		throttles, share := o.throttles.value(now), o.calls/o.areaCalls
		if o.calls >= minHotCalls && throttles >= hotOutOfProportion*share*all {
			t.ranked = append(t.ranked, rankedResource{o, throttles, share})
		}
	}
	slices.SortFunc(t.ranked, func(a, b rankedResource) int { return cmp.Compare(b.throttles, a.throttles) })
	// r must rank among them: a resource with a throttle or two beside
	// the hot ones is the area's limit showing, not one of them.
	var hot, share float64
	ranks := false
	for _, o := range t.ranked[:min(len(t.ranked), maxHot)] {
		hot, share = hot+o.throttles, share+o.share
		ranks = ranks || o.r == r
		if ranks && hot >= concentratedShare*all && all-hot <= tolerated {
			return share <= minorityShare
		}
	}
	return false
}

// rankedResource is a resource judgeHot ranks: its recent throttles, its
// share of the area's calls since its first throttle.
type rankedResource struct {
	r                *resourceCounts
	throttles, share float64
}

// Refuse reports whether a call of method and path is refused before its
// first attempt, and how far the resource's retries reach: its throttles
// are its own, and the retries placed
// by SpaceRetry reach further than its last Retry-After (at least 1 s)
// from now. Those retries take what the resource admits until then; the
// call's attempt would only be throttled and its retry placed behind them.
// So it needs at least minPending retries queued; a resource only presumed
// a minority is not refused on; and a refused call counts as one of its
// calls, the resource judged again with it.
func (t *ResourceThrottles) Refuse(method, path string) (time.Duration, bool) {
	if !t.tracked.Load() {
		return 0, false
	}
	k := t.key(method, path)
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.resources[k]
	if r == nil || !r.known() || !t.rejudge(r, now) {
		return 0, false // a presumption is not refused on: its calls must be counted
	}
	i := 0
	for i < len(r.pending) && !r.pending[i].After(now) {
		i++
	}
	r.pending = r.pending[i:]
	ahead := r.retryAt.Sub(now)
	if len(r.pending) < minPending || ahead <= max(r.retryAfter, time.Second) {
		return 0, false
	}
	// A refused call is a call of the resource: should its calls become
	// most of the area's, its throttles go to the pacer again.
	t.calls++
	r.update(t.calls, now)
	r.calls++
	return ahead, true
}

// known reports whether r's share of the area's calls is known.
func (r *resourceCounts) known() bool {
	return r.calls >= minResourceCalls || r.areaCalls >= minAreaCalls
}

// sweep forgets the resources throttled last resourceExpiry ago, once a
// second. The caller holds t.mu.
func (t *ResourceThrottles) sweep(now time.Time) {
	if now.Before(t.sweepAt) {
		return
	}
	t.sweepAt = now.Add(time.Second)
	for k, r := range t.resources {
		if now.Sub(r.last) >= resourceExpiry {
			t.forget(k)
		}
	}
}

// forget stops tracking the resource k. The caller holds t.mu.
func (t *ResourceThrottles) forget(k uint64) {
	if r := t.resources[k]; r != nil && r.own {
		t.own.Add(-1)
	}
	delete(t.resources, k)
	if len(t.resources) == 0 {
		t.tracked.Store(false)
		t.calls = 0
	}
}
