package core

import (
	"context"
	"testing"
	"time"
)

// warmCache returns a cache holding a token that expires in exp (0: unknown
// expiry), fetched once.
func warmCache(tb testing.TB, exp time.Duration) *TokenCache {
	tb.Helper()
	c := NewTokenCache(func(context.Context) (string, time.Time, error) {
		if exp == 0 {
			return "tok", time.Time{}, nil
		}
		return "tok", time.Now().Add(exp), nil
	})
	if _, err := c.Get(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return c
}

// BenchmarkTokenCacheGet measures the hit path of TokenCache.Get: a warm
// token with unknown expiry (one atomic load) and one an hour from expiry
// (an atomic load and a clock read). Budget: < 1µs and 0 allocs/op.
func BenchmarkTokenCacheGet(b *testing.B) {
	for _, tc := range []struct {
		name string
		exp  time.Duration
	}{{"unknown-expiry", 0}, {"expiry-1h", time.Hour}} {
		b.Run(tc.name, func(b *testing.B) {
			c := warmCache(b, tc.exp)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Get(ctx); err != nil {
					b.Fatal(err)
				}
			}
			if c.Fetches() != 1 {
				b.Fatalf("hit path fetched: %d fetches", c.Fetches())
			}
		})
		b.Run(tc.name+"-parallel", func(b *testing.B) {
			c := warmCache(b, tc.exp)
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := c.Get(ctx); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// TestTokenCacheHitAllocs is the untimed guard for the benchmark's budget:
// a warm hit allocates nothing.
func TestTokenCacheHitAllocs(t *testing.T) {
	for _, exp := range []time.Duration{0, time.Hour} {
		c := warmCache(t, exp)
		ctx := context.Background()
		if n := testing.AllocsPerRun(100, func() { _, _ = c.Get(ctx) }); n != 0 {
			t.Errorf("expiry %v: %v allocs per hit, want 0", exp, n)
		}
	}
}
