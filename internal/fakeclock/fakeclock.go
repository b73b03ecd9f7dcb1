// Package fakeclock is a clock that tests move by hand, for the token cache
// and the pacer, which take their clock as a func() time.Time.
package fakeclock

import (
	"sync/atomic"
	"time"
)

// Clock may be read from any goroutine while one goroutine, the test's,
// moves it.
type Clock struct{ t atomic.Pointer[time.Time] }

// New returns a Clock at a whole second.
func New() *Clock {
	c := new(Clock)
	c.Set(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	return c
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return *c.t.Load() }

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) { c.t.Store(&t) }

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) { c.Set(c.Now().Add(d)) }
