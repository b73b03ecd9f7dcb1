package pacer

import (
	"syscall"
	"time"
)

// precise is the last stretch of a wait for a slot that the head of the
// queue sleeps with sleepPrecisely rather than on a timer.
const precise = 2 * time.Millisecond

// sleepPrecisely sleeps d (at most precise) in the kernel, blocking its
// thread; the runtime runs other goroutines on other threads meanwhile.
//
// On Linux, a Go timer wakes up to a millisecond late whenever the process
// is otherwise idle, as a paced client mostly is: the runtime's poller
// waits whole milliseconds (epoll_wait's timeout), so a 1.5 ms timer fires
// after about 2.2 ms. Slots taken that late are lost, never made up (take),
// so a pacer set to 500 attempts/s sent about 400, and a cut below a whole
// millisecond's interval fell to the next (from 2 to 3 ms: 500 to 330/s).
// nanosleep wakes about 0.1 ms late, whatever d is.
func sleepPrecisely(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	// The runtime's signals (preemption) interrupt it; ts then holds
	// what is left.
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
