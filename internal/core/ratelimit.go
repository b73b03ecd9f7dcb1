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
// rate limit (the limiter engages only after a throttle), so it matches
// errors.ErrRateLimited. A caller's own cancellation is left as it is.
func pacedOut(err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	return rateLimitedWait{err}
}

// rateLimitedWait is the cause of a call the adaptive limiter stopped; it
// unwraps to the limiter's error.
type rateLimitedWait struct{ cause error }

func (e rateLimitedWait) Error() string { return e.cause.Error() }

// Unwrap returns the limiter's error.
func (e rateLimitedWait) Unwrap() error { return e.cause }

// Is matches errors.ErrRateLimited.
func (e rateLimitedWait) Is(target error) bool { return target == apierrors.ErrRateLimited }
