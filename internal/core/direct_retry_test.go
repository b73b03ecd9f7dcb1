package core

import (
	"errors"
	"net"
	"testing"
)

// A dial the client refused because a loopback name led to a non-loopback
// peer is no transient failure: a net.OpError with Op "dial" is otherwise
// retried even for a POST (nothing was sent), and this one would be
// refused again on every attempt, spending the retry budget.
func TestDirectRefusalIsNotRetried(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(203, 0, 113, 9), Port: 80},
		Err: &directError{errors.New(`"api.localhost" resolved to 203.0.113.9, not a loopback address; refused`)}}
	for _, idempotent := range []bool{false, true} {
		if retriableError(idempotent, refused) {
			t.Errorf("retriableError(%v, the direct refusal) = true, want false", idempotent)
		}
	}
	if !retriableError(false, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}) {
		t.Error("an ordinary dial failure is no longer retried")
	}
}
