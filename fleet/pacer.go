package fleet

import (
	"sync"
	"time"
)

// localPacer stands in for Redis during an outage: a GCRA bucket in memory,
// at this replica's share of the rate. Unlike a fresh rate.Limiter it can
// start empty at a time in the future: after the last turn Redis handed
// out, which attempts already reserved are still waiting for.
type localPacer struct {
	mu       sync.Mutex
	interval time.Duration
	burst    int
	tat      time.Time // theoretical arrival time, as in the Redis script
}

// newLocalPacer returns a pacer at perSecond with bursts of burst whose
// first turn is one interval after start.
func newLocalPacer(perSecond float64, burst int, start time.Time) *localPacer {
	interval := time.Duration(float64(time.Second) / perSecond)
	return &localPacer{interval: interval, burst: burst, tat: start.Add(time.Duration(burst) * interval)}
}

// reserve takes the next turn, at now or later, and returns it with the
// bucket's new TAT (for release). It takes nothing, and returns ok false,
// when the turn would come after deadline (zero: no deadline).
func (p *localPacer) reserve(now, deadline time.Time) (turn, tat time.Time, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	tat = later(p.tat, now).Add(p.interval)
	turn = later(tat.Add(-time.Duration(p.burst)*p.interval), now)
	if !deadline.IsZero() && turn.After(deadline) {
		return turn, time.Time{}, false
	}
	p.tat = tat
	return turn, tat, true
}

// release gives back a turn whose waiter left, when it was the last one
// handed out; a later turn keeps its place.
func (p *localPacer) release(tat time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tat.Equal(tat) {
		p.tat = tat.Add(-p.interval)
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
