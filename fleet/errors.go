package fleet

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// ErrUnavailable matches, with errors.Is, the error Wait returns under
// WithFailClosed while Redis cannot answer, and the error of a client call
// it refused. That error does not match errors.ErrRateLimited (package
// github.com/memberplatform/memberplatform-go/errors): no rate limit
// refused the call, the store that keeps it could not be reached, and
// nothing says when it will be back (errors.RetryAfterOf knows no wait).
// Test it before ErrRateLimited when you treat the two differently:
//
//	switch {
//	case errors.Is(err, fleet.ErrUnavailable): // Redis is away: fail, or degrade
//	case errors.Is(err, apierrors.ErrRateLimited): // throttled: back off
//	}
var ErrUnavailable = errors.New("fleet: rate limit store unavailable")

// WaitError is the error Wait returns when it does not admit an attempt.
// The SDK ends the call with an *errors.TransportError whose chain reaches
// it, so errors.Is and errors.As work on the call's error too.
type WaitError struct {
	// Key is the limiter's key.
	Key string
	// Delay is how long the attempt would have had to wait for its turn,
	// when Wait refused because that wait would have ended after the
	// context's deadline, or because the key holds a turn further ahead
	// than the limiter ever reserves (up to the largest Duration); 0
	// otherwise. It is never negative.
	Delay time.Duration
	// Err is the cause: context.DeadlineExceeded when Delay is set because
	// of the deadline, an error naming the key's far turn when Delay is set
	// because of it, the context's error when it ended during the wait, or
	// an error matching ErrUnavailable (and wrapping Redis's error) under
	// WithFailClosed.
	Err error
}

// Error returns one line naming the key and the cause.
func (e *WaitError) Error() string {
	msg := "fleet: rate limit " + strconv.Quote(e.Key) + ": "
	if e.Delay > 0 {
		msg += "the next turn is " + e.Delay.Round(time.Millisecond).String() + " away"
		if errors.Is(e.Err, context.DeadlineExceeded) {
			msg += ", after the context's deadline"
		}
		msg += ": "
	}
	return msg + strings.TrimPrefix(e.Err.Error(), "fleet: ")
}

// Unwrap returns Err.
func (e *WaitError) Unwrap() error { return e.Err }

// Is matches errors.ErrRateLimited when Wait refused a wait that would have
// ended after the deadline, or one too far ahead to wait for: the fleet's
// rate limit, not the caller, is what the call could not wait for.
func (e *WaitError) Is(target error) bool {
	return target == apierrors.ErrRateLimited && e.Delay > 0
}

// RateLimited reports whether the refusal is the rate limit's: false when
// Redis could not answer under WithFailClosed (Err matches ErrUnavailable),
// true otherwise, a wait cut short by the context included. The SDK asks
// it (see option.RateLimiter): a call refused while Redis is away ends in
// an *errors.TransportError that matches ErrUnavailable and not
// errors.ErrRateLimited, where any other refusal of the limiter matches
// errors.ErrRateLimited.
func (e *WaitError) RateLimited() bool { return !errors.Is(e.Err, ErrUnavailable) }

// RetryAfter returns how long the refused attempt would have waited for
// its turn, so that errors.RetryAfterOf (package
// github.com/memberplatform/memberplatform-go/errors) reports it: Delay,
// except for a key holding a turn beyond what the limiter ever reserves,
// whose Delay (days, or the largest Duration) is no wait to sleep on: 0,
// unknown.
func (e *WaitError) RetryAfter() time.Duration {
	if errors.Is(e.Err, errForeignSchedule) {
		return 0
	}
	return max(e.Delay, 0)
}

// Timeout reports whether the cause is an expired deadline.
func (e *WaitError) Timeout() bool { return errors.Is(e.Err, context.DeadlineExceeded) }
