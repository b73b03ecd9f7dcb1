//go:build !linux

package pacer

import "time"

// precise is 0 where Go's timers wake on time (kqueue's and Windows'
// high-resolution timers): every wait sleeps on a timer.
const precise = 0

// sleepPrecisely is time.Sleep; with precise 0 it is never called.
func sleepPrecisely(d time.Duration) { time.Sleep(d) }
