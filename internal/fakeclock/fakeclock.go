// Package fakeclock is a clock that tests move by hand, for the token cache
// and the pacer, which take their clock as a func() time.Time.
package fakeclock

import (
	"sync"
	"time"
)

// Clock is safe for concurrent use: the code under test reads it from its
// own goroutines while the test moves it.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New returns a Clock at a whole second.
func New() *Clock {
	return &Clock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
