package pacer

import (
	"sync/atomic"
	"time"
)

// meter counts admitted answers in one-second buckets, to estimate the rate
// the provider admitted over the last second. It is lock-free: a dormant
// pacer counts every healthy answer here without taking its lock.
//
// Each bucket packs the Unix second it counts (low 32 bits, as a tag) above
// the count (low 32 bits); bucket s%2 holds second s. A bucket whose tag is
// not the second asked about counts nothing for it.
type meter struct {
	buckets [2]atomic.Uint64
}

func (m *meter) add(now time.Time) {
	s := now.Unix()
	b := &m.buckets[s&1]
	tag := uint64(uint32(s)) << 32
	for {
		v := b.Load()
		if v&^(1<<32-1) == tag {
			// The common case: one more in the current second. (Were
			// the bucket taken over for second s+2 between the load and
			// the add, this answer would count there: an estimate off by
			// one answer, after a goroutine stalled for two seconds.)
			b.Add(1)
			return
		}
		if b.CompareAndSwap(v, tag|1) { // the first answer of a new second
			return
		}
	}
}

// count returns the answers counted in second s.
func (m *meter) count(s int64) float64 {
	v := m.buckets[s&1].Load()
	if v>>32 != uint64(uint32(s)) {
		return 0
	}
	return float64(uint32(v))
}

// rate estimates the answers admitted in the second before now: all of the
// current second's, and the share of the previous second's that falls
// within the last second.
func (m *meter) rate(now time.Time) float64 {
	s := now.Unix()
	frac := float64(now.Nanosecond()) / 1e9
	return m.count(s) + m.count(s-1)*(1-frac)
}
