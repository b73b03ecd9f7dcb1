package pacer

import (
	"context"
	"testing"
)

// BenchmarkAttempt is what one attempt costs the pacer (Wait, then an
// admitted answer): dormant, and engaged so fast that nothing waits.
func BenchmarkAttempt(b *testing.B) {
	for _, tc := range []struct {
		name string
		rate float64
	}{{"dormant", 0}, {"engaged", 1e12}} {
		b.Run(tc.name, func(b *testing.B) {
			p := New()
			if tc.rate > 0 {
				p.Engage(tc.rate)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Wait(context.Background(), NoMaxWait); err != nil {
					b.Fatal(err)
				}
				p.Admitted(0)
			}
		})
	}
}
