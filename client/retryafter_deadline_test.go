package client_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// What option.WithMaxRetryAfter's godoc promises for a 429 whose
// Retry-After is within the cap but past the call's deadline: the call does
// not sleep to the deadline, it returns the 429 at once, matching
// ErrRateLimited and not DeadlineExceeded, with the asked wait for
// RetryAfterOf. (Returning the 429 itself, after one attempt, proves it did
// not wait: a wait would have ended in a TransportError at the deadline.)
func TestRetryAfterPastTheDeadlineReturnsTheAnswer(t *testing.T) {
	srv := newRetryServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		w.Header().Set("Retry-After", "10")
		retryJSON(w, http.StatusTooManyRequests, `{}`)
	})
	c := newRetryClient(t, srv.URL, option.WithTimeout(3*time.Second))
	_, err := updatePM(context.Background(), c)
	var ae *apierrors.Error
	switch {
	case !errors.As(err, &ae) || ae.StatusCode != http.StatusTooManyRequests || ae.Attempts != 1 || srv.hits() != 1:
		t.Fatalf("err = %v after %d hits; want the 429 after 1 attempt", err, srv.hits())
	case !errors.Is(err, apierrors.ErrRateLimited) || errors.Is(err, context.DeadlineExceeded):
		t.Errorf("err = %v; want ErrRateLimited, not DeadlineExceeded", err)
	}
	if wait, ok := apierrors.RetryAfterOf(err); !ok || wait != 10*time.Second {
		t.Errorf("RetryAfterOf = %v, %v; want 10s", wait, ok)
	}
}
