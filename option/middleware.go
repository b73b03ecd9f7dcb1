package option

import (
	"errors"
	"net/http"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// Middleware sees each HTTP request the SDK sends and calls next to send
// it, or answers itself. It may read and add headers, time the request,
// record the response, or fail the request with an error (which the retry
// policy then classifies like a transport error).
type Middleware func(req *http.Request, next MiddlewareNext) (*http.Response, error)

// MiddlewareNext sends the request on: to the next middleware, then to the
// transport.
type MiddlewareNext = func(*http.Request) (*http.Response, error)

// WithMiddleware runs mw on every HTTP request of every attempt, in the
// order given, client-wide ones before per-call ones.
//
// Where it sits: inside the retry loop, so a call that is retried runs the
// middleware once per attempt; after the bearer token, the X-Retry-Attempt
// header and the SigV4 signature are set, so it sees the request as it goes
// out; above the transport (option.WithTransport). A redirect the client
// follows is a request of its own and runs the middleware again. It also
// runs for the SigV4 token request of a client built with option.WithSigV4:
// there it must not change the method, URL, body or any signed header
// (Host, X-Amz-Date, X-Amz-Security-Token, X-Retry-Attempt), or the
// signature breaks; adding an unsigned header is fine.
//
// Scope: client-wide and per call (added after the client's). Default:
// none.
func WithMiddleware(mw ...Middleware) RequestOption {
	return anywhere(func(s *core.Settings) error {
		chain := s.Middleware[:len(s.Middleware):len(s.Middleware)] // never append into the client's array
		for _, m := range mw {
			if m == nil {
				return errors.New("memberplatform: WithMiddleware: nil Middleware")
			}
			chain = append(chain, core.Middleware(m))
		}
		s.Middleware = chain
		return nil
	})
}
