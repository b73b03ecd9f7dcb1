package pacer

import (
	"sync/atomic"
	"time"
)

// Meter counts events lock-free in one-second buckets: bucket s%2 holds
// second s's low 32 bits above its count. The pacer counts its answers
// with it, and core the calls of an area (resources.go).
type Meter struct{ buckets [2]atomic.Uint64 }

// Add counts one event at now, and reports whether it was the first of
// its second.
func (m *Meter) Add(now time.Time) (first bool) {
	s := now.Unix()
	b := &m.buckets[s&1]
	tag := uint64(uint32(s)) << 32
	for {
		v := b.Load()
		if v&^(1<<32-1) == tag { // (off by one if second s+2 took it over since)
			b.Add(1)
			return false
		}
		if b.CompareAndSwap(v, tag|1) {
			return true
		}
	}
}

// Count returns the events counted in second s.
func (m *Meter) Count(s int64) float64 {
	if v := m.buckets[s&1].Load(); v>>32 == uint64(uint32(s)) {
		return float64(uint32(v))
	}
	return 0
}

// Counted reports whether second s was counted.
func (m *Meter) Counted(s int64) bool { return m.buckets[s&1].Load()>>32 == uint64(uint32(s)) }

// lately returns the events counted in now's second and the one before.
func (m *Meter) lately(now time.Time) float64 {
	return m.Count(now.Unix()) + m.Count(now.Unix()-1)
}

// Rate estimates the events of the second before now.
func (m *Meter) Rate(now time.Time) float64 {
	return m.Count(now.Unix()) + m.Count(now.Unix()-1)*(1-float64(now.Nanosecond())/1e9)
}

// meter counts admitted answers; begun is when the answers began after a
// second without any (Unix nanoseconds).
type meter struct {
	Meter
	begun atomic.Int64
}

func (m *meter) add(now time.Time) {
	if m.Add(now) && !m.Counted(now.Unix()-1) { // (a new second: one check a second)
		m.begun.Store(now.UnixNano())
	}
}

// minSpan is the shortest span over which rateSince measures a rate, and
// freshAnswers the fewest answers it measures it from: 1 answer in 100 ms
// says little of a provider admitting 1 request/s.
const (
	minSpan      = 100 * time.Millisecond
	freshAnswers = 10
)

// fresh reports whether the answers began less than a second before now,
// and how many were counted since.
func (m *meter) fresh(now time.Time) (bool, float64) {
	span := now.Sub(time.Unix(0, m.begun.Load()))
	return span >= 0 && span < time.Second, m.lately(now)
}

// rateSince is rate, except in the first second of answers after a second
// without any, which rate would take for a whole one: the answers since
// they began over that time, at least minSpan. A client starting to send
// at 1,000 requests/s measures about that, not the few it counted so far.
func (m *meter) rateSince(now time.Time) float64 {
	if fresh, n := m.fresh(now); fresh && n >= freshAnswers {
		span := now.Sub(time.Unix(0, m.begun.Load()))
		return max(m.Rate(now), n/max(span, minSpan).Seconds())
	}
	return m.Rate(now)
}
