package core

import (
	"context"
	stderrors "errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// --- SDK errors that are never retried ---------------------------------------

func TestSigningErrorNotRetried(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 503, `{}`) })
	c := rtNewClient(t, srv.URL, nil)
	signErr := stderrors.New("no credentials")
	t.Run("first attempt", func(t *testing.T) {
		call := rtCall(rtPutOp, nil)
		call.Sign = func(*http.Request, []byte) error { return signErr }
		err := c.do(context.Background(), call)
		if !stderrors.Is(err, apierrors.ErrTokenUnavailable) || !stderrors.Is(err, signErr) || srv.hits() != 0 {
			t.Fatalf("err = %v, hits %d; want a TokenError before any request", err, srv.hits())
		}
	})
	t.Run("on retry", func(t *testing.T) {
		n := 0
		call := rtCall(rtPutOp, nil)
		call.Sign = func(*http.Request, []byte) error {
			if n++; n > 1 {
				return signErr
			}
			return nil
		}
		err := c.do(context.Background(), call)
		var te *apierrors.TokenError
		if !stderrors.As(err, &te) || !stderrors.Is(err, signErr) {
			t.Fatalf("err = %T %v; want the signing TokenError, not the drained 503", err, err)
		}
		if n != 2 || srv.hits() != 1 {
			t.Fatalf("signed %d times, %d hits; want 2, 1", n, srv.hits())
		}
	})
}

func TestValidationErrorNotSent(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 200, `{}`) })
	c := rtNewClient(t, srv.URL, nil)
	call := rtCall(rtPutOp, nil)
	call.Body = map[string]any{"bad": make(chan int)}
	err := c.do(context.Background(), call)
	if !stderrors.Is(err, apierrors.ErrInvalidInput) || srv.hits() != 0 {
		t.Fatalf("err = %v, hits %d; want ErrInvalidInput and no request", err, srv.hits())
	}
}

// --- Errors the SDK cannot classify as transient -----------------------------

// rtErrTransport fails every round trip with err and counts the calls.
type rtErrTransport struct {
	err   error
	calls atomic.Int32
}

func (e *rtErrTransport) RoundTrip(*http.Request) (*http.Response, error) {
	e.calls.Add(1)
	return nil, e.err
}

// An invalid header value is a malformed request, not a transient failure:
// sending it again fails the same way. It was retried 3 times before.
func TestUnclassifiedErrorNotRetried(t *testing.T) {
	t.Run("from a transport", func(t *testing.T) {
		tr := &rtErrTransport{err: stderrors.New(`net/http: invalid header field value for "User-Agent"`)}
		c := rtNewClient(t, "http://127.0.0.1:1", func(s *Settings) { s.Transport = tr })
		err := c.do(context.Background(), rtCall(rtPutOp, nil))
		rtWantTransportError(t, err, 1)
		if n := tr.calls.Load(); n != 1 || !strings.Contains(err.Error(), "invalid header field value") {
			t.Fatalf("%d round trips, err %v; want 1 and the cause kept", n, err)
		}
	})
	t.Run("from net/http itself", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 200, `{}`) })
		c := rtNewClient(t, srv.URL, func(s *Settings) {
			// Options refuse such a value; set it below them to get the
			// real net/http error.
			s.Header = http.Header{"X-Bad": {"a\nb"}}
		})
		err := c.do(context.Background(), rtCall(rtPutOp, nil))
		rtWantTransportError(t, err, 1)
		if !strings.Contains(err.Error(), "invalid header field value") || srv.hits() != 0 {
			t.Fatalf("err %v, %d hits; want net/http's invalid header error before anything was sent", err, srv.hits())
		}
	})
}
