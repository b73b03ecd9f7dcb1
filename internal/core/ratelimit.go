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
// rate limit (the limiter engages only after a throttle); a caller's own
// cancellation stays as it is.
func pacedOut(err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	return markedError{cause: err, sentinel: apierrors.ErrRateLimited}
}
