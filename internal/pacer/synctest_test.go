package pacer

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// In a testing/synctest bubble, whose clock moves only while every
// goroutine waits on it, an engaged pacer still lets its waiters out at
// its rate: the precise sleep, which the bubble's clock does not see,
// falls back to a timer instead of spinning at one instant.
func TestPacerPacesInASynctestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := engaged(10)
		start := time.Now()
		for range 5 {
			if _, err := p.Wait(context.Background(), NoMaxWait); err != nil {
				t.Fatal(err)
			}
		}
		// 5 slots 100 ms apart, the first at once.
		if got := time.Since(start); got < 350*time.Millisecond || got > 450*time.Millisecond {
			t.Errorf("5 waits at 10/s took %v of the bubble's time, want about 400 ms", got)
		}
	})
}
