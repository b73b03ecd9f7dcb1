package core

import (
	"context"
	stderrors "errors"
	"net/http"
	"testing"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// storeDown is a limiter's error that says whether it is a rate limit, as
// fleet's *WaitError does.
type storeDown struct{ rateLimited bool }

func (e *storeDown) Error() string     { return "limiter store unreachable" }
func (e *storeDown) RateLimited() bool { return e.rateLimited }

// cancelledLimiter cancels the call while it waits, and returns the
// context's error as a limiter does when the call is cancelled then.
type cancelledLimiter struct{ cancel context.CancelFunc }

func (l cancelledLimiter) Wait(ctx context.Context) error {
	l.cancel()
	<-ctx.Done()
	return ctx.Err()
}

// A limiter's error matches errors.ErrRateLimited unless the limiter says
// it is no rate limit: invalid input, or RateLimited() false anywhere in
// its chain (a store that cannot answer). Either way nothing is sent and
// the call ends in a *TransportError wrapping the limiter's error.
func TestLimiterErrorIsARateLimitUnlessItSaysNot(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 200, `{}`) })
	for _, tc := range []struct {
		name        string
		err         error
		rateLimited bool
	}{
		{"plain refusal", stderrors.New("no turn"), true},
		{"says it is a rate limit", &storeDown{rateLimited: true}, true},
		{"store down", &storeDown{}, false},
		{"store down, wrapped", &wrapped{&storeDown{}}, false},
		{"misconfigured", &apierrors.ValidationError{Operation: "limiter"}, false},
	} {
		c := rtNewClient(t, srv.URL, func(s *Settings) { other(s).Limiter = &countingLimiter{err: tc.err} })
		err := c.do(context.Background(), rtCall(rtPutOp, nil))
		rtWantTransportError(t, err, 0)
		if !stderrors.Is(err, tc.err) {
			t.Errorf("%s: %v does not wrap the limiter's error", tc.name, err)
		}
		if got := stderrors.Is(err, apierrors.ErrRateLimited); got != tc.rateLimited {
			t.Errorf("%s: errors.Is(%v, ErrRateLimited) = %v; want %v", tc.name, err, got, tc.rateLimited)
		}
	}
	if srv.hits() != 0 {
		t.Errorf("%d requests sent past a refusing limiter; want 0", srv.hits())
	}
}

// A call cancelled while it waits for its turn matches ErrRateLimited (what
// it waited for) and the context's error.
func TestCancelledWhileWaitingOnTheLimiterIsRateLimited(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 200, `{}`) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := rtNewClient(t, srv.URL, func(s *Settings) { other(s).Limiter = cancelledLimiter{cancel} })
	err := c.do(ctx, rtCall(rtPutOp, nil))
	if !stderrors.Is(err, apierrors.ErrRateLimited) || !stderrors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want ErrRateLimited and context.Canceled", err)
	}
}

// wrapped hides its cause behind one Unwrap.
type wrapped struct{ err error }

func (w *wrapped) Error() string { return "wrapped: " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }
