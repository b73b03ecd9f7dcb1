package option

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/observe"
)

// WithLogger logs, with the operation's context, a Debug record per HTTP
// attempt (operation, method, path template, status, attempt, duration,
// request ID) and a Warn record per retry and give-up: never headers,
// tokens, signatures or bodies. WithLogger(nil) turns logging off,
// MEMBERPLATFORM_LOG included; a logger without a handler is refused.
//
// Scope: both. Default: none, unless MEMBERPLATFORM_LOG names a level (see
// client.EnvLog).
func WithLogger(l *slog.Logger) RequestOption {
	return checked(l != nil && (l.Handler() == nil || core.NilInside(l.Handler())),
		"option.WithLogger: a *slog.Logger with a nil handler panics on its first record; build it with slog.New, or pass nil for no logging",
		func(s *core.Settings) { s.Logger = l })
}

// Middleware sees each HTTP request the SDK sends and calls next to send
// it, or answers itself; its error is retried like a transport error.
type Middleware func(req *http.Request, next MiddlewareNext) (*http.Response, error)

// MiddlewareNext sends the request on: to the next middleware, then the transport.
type MiddlewareNext = func(*http.Request) (*http.Response, error)

// WithMiddleware runs mw, in order, on every HTTP request (each attempt
// and redirect) as it goes out, signed, above WithTransport. On the SigV4
// token request it may add headers; changing the method, URL, body or a
// signed header (Host, X-Amz-Date, X-Amz-Security-Token, X-Retry-Attempt)
// breaks the signature.
//
// Scope: both (a call's run after the client's). Default: none.
func WithMiddleware(mw ...Middleware) RequestOption {
	return requestOption{apply: func(s *core.Settings) error {
		chain := s.Middleware[:len(s.Middleware):len(s.Middleware)] // never append into the client's array
		for _, m := range mw {
			if m == nil {
				return errors.New("memberplatform: WithMiddleware: nil Middleware")
			}
			chain = append(chain, core.Middleware(m))
		}
		s.Middleware = chain
		return nil
	}}
}

// WithObserver adds an observer (package observe) of every call, attempt,
// token fetch, retry decision, rate-limit wait and budget refusal, as the
// OpenTelemetry options of module
// github.com/memberplatform/memberplatform-go/otelmemberplatform do. An
// observer that also implements observe.ShedObserver, observe.StateObserver
// or observe.DeprecationObserver is told of sheds, load-control state or
// deprecated answers too; embed observe.Nop for the events it does not need.
// Observers are called in order, unless an observe.Combiner merges with the
// one before; nil is ignored.
//
// Scope: client. Default: none, at no cost.
func WithObserver(o observe.Observer) RequestOption {
	return clientWide(clientWideObserver, requestOption{apply: func(s *core.Settings) error { return s.AddObserver(o) }})
}
