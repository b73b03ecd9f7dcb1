package core

import (
	"context"
	"errors"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// RateLimiter is option.RateLimiter (its contract is documented there),
// waited on before every attempt, retries and the token call included.
type RateLimiter interface {
	Wait(ctx context.Context) error
}

// pacedOut marks an error of the adaptive limiter's wait as the provider's
// rate limit: the limiter is engaged only because the provider throttled
// the client, so a call it stopped (its slot was after the deadline, or
// further than MaxRetryAfter) failed for that throttling, and matches
// errors.ErrRateLimited whether or not this call saw a 429 itself. A
// caller's own cancellation is left as it is.
func pacedOut(err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	return rateLimitedWait{err}
}

// rateLimitedWait is the cause recorded on the *errors.TransportError of a
// call the adaptive limiter stopped. It matches errors.ErrRateLimited, and
// context.DeadlineExceeded when the deadline was the reason (through the
// limiter's error, which it unwraps to).
type rateLimitedWait struct{ cause error }

func (e rateLimitedWait) Error() string { return e.cause.Error() }

// Unwrap returns the limiter's error.
func (e rateLimitedWait) Unwrap() error { return e.cause }

// Is matches errors.ErrRateLimited.
func (e rateLimitedWait) Is(target error) bool { return target == apierrors.ErrRateLimited }
