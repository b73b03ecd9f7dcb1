package core

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// RateLimiter is waited on before every attempt, retries and the token
// call included. option.RateLimiter is the same interface; a
// *rate.Limiter from golang.org/x/time/rate satisfies it. Wait must return
// promptly with an error when ctx is done, and should refuse (return an
// error at once) a wait that would end after ctx's deadline, as
// *rate.Limiter does. An error ends the call.
type RateLimiter interface {
	Wait(ctx context.Context) error
}

// waitTurn waits until the call may send its next attempt: first on the
// adaptive limiter (internal/pacer), then on the user's limiter. It runs
// before the first attempt of a send and after the backoff of each retry,
// before the attempt is signed, so a long wait cannot stale a signature.
// The adaptive limiter never starts a wait longer than MaxRetryAfter, the
// longest the client waits when the provider itself asks.
func (state *callState) waitTurn(ctx context.Context) error {
	defer state.observeWait(state.waitStarts())
	if a := state.s.Adaptive; a != nil {
		epoch, err := a.Wait(ctx, state.s.Retry.MaxRetryAfter)
		if err != nil {
			return pacedOut(err)
		}
		state.epoch = epoch
	}
	if l := state.s.RateLimiter; l != nil {
		if err := l.Wait(ctx); err != nil {
			return fmt.Errorf("waiting on the rate limiter: %w", err)
		}
	}
	return nil
}

// observeRate tells the adaptive limiter how an attempt went: apiErr is its
// decoded error response (nil for a 2xx) and err the failure that left it
// without a usable response.
func (state *callState) observeRate(apiErr *apierrors.Error, err error) {
	a := state.s.Adaptive
	if a == nil || err != nil {
		return // no answer: nothing learnt about the provider's rate
	}
	switch {
	case apiErr == nil:
		a.Admitted()
	case rateLimited(apiErr):
		a.Throttled(state.epoch, apiErr.RetryAfter)
	case apiErr.StatusCode < http.StatusInternalServerError:
		// A 4xx was admitted by the provider's limit just as a 2xx was. A
		// 5xx says nothing about the rate and is left to the retry budget.
		a.Admitted()
	}
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
