package pacer

import (
	"sync/atomic"
	"time"
)

// meter counts admitted answers lock-free in one-second buckets: bucket s%2
// holds second s's low 32 bits above its count.
type meter struct{ buckets [2]atomic.Uint64 }

func (m *meter) add(now time.Time) {
	s := now.Unix()
	b := &m.buckets[s&1]
	tag := uint64(uint32(s)) << 32
	for {
		v := b.Load()
		if v&^(1<<32-1) == tag { // (off by one if second s+2 took it over since)
			b.Add(1)
			return
		}
		if b.CompareAndSwap(v, tag|1) {
			return
		}
	}
}

// count returns the answers counted in second s.
func (m *meter) count(s int64) float64 {
	if v := m.buckets[s&1].Load(); v>>32 == uint64(uint32(s)) {
		return float64(uint32(v))
	}
	return 0
}

// rate estimates the answers admitted in the second before now.
func (m *meter) rate(now time.Time) float64 {
	return m.count(now.Unix()) + m.count(now.Unix()-1)*(1-float64(now.Nanosecond())/1e9)
}
