package fleet

import (
	"context"
	"fmt"
	"time"
)

// unavailableError is a Redis call that failed or did not answer in time,
// for a reason other than the caller's context ending.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string { return "redis unavailable: " + e.err.Error() }
func (e *unavailableError) Unwrap() error { return e.err }

// callRedis runs call with a context that ends after timeout, and returns
// when call does or when that context ends, whichever comes first.
//
// go-redis applies context deadlines to socket reads only when the client
// has ContextTimeoutEnabled, which is off by default: a Redis that accepts
// the connection but does not answer would hold the call for the client's
// ReadTimeout (3 s by default). call therefore runs in a goroutine of its
// own; one that is abandoned ends when go-redis gives up on its read.
func callRedis[T any](ctx context.Context, timeout time.Duration, call func(context.Context) (T, error)) (T, error) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		value T
		err   error
	}
	done := make(chan result, 1) // buffered: an abandoned call does not block
	go func() {
		v, err := call(rctx)
		done <- result{v, err}
	}()
	var zero T
	select {
	case r := <-done:
		if r.err == nil {
			return r.value, nil
		}
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		return zero, &unavailableError{r.err}
	case <-rctx.Done():
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		// A process that was not scheduled for a while finds the answer
		// and the timeout ready together: the answer came in time.
		select {
		case r := <-done:
			if r.err == nil {
				return r.value, nil
			}
		default:
		}
		return zero, &unavailableError{fmt.Errorf("no answer within %v", timeout)}
	}
}
