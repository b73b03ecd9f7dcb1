package option

import "github.com/memberplatform/memberplatform-go/internal/core"

// WithoutAdmissionControl turns off the admission control of every area,
// for when another layer sheds load (a service mesh's circuit breaker) or
// every call must reach the platform whatever it answered before.
//
// Admission control refuses a share of an operation's attempts locally, at
// once and without sending them, while nearly all of that operation's
// recent answers are failures: 5xx answers (but 501 and the
// provider-not-configured problem), or attempts without an answer. It is
// Google SRE's client-side throttling, judged per operation as Hystrix
// judges each command: over the last 2 s of the operation's attempts, it
// refuses an attempt with probability max(0, (requests − 5·accepts) /
// (requests + 1)), where accepts are the attempts answered with anything
// else (2xx, 4xx, 429: throttles are the adaptive rate limit's). So it
// refuses nothing while at least a fifth of the answers are accepts (a
// backend failing 1 answer in 10, or 7 in 10, loses no attempt), nothing
// for a quiet operation or one with fewer than 10 failures in the last 2
// s, and nearly everything once the operation answers nothing but
// failures. One operation failing whole (a poison input, a broken
// sub-service) is shed on its own: the other operations of its area keep
// being sent and served. When every operation of an area fails (no answer
// of the area accepted for 250 ms: the backend is down), the area is shed
// as a whole, operations too rare to have failed on their own included
// (but not one whose last answer was accepted: it is sent until it fails
// itself).
// Even then one call's first attempt per operation per 100 ms goes out as
// a probe (never a retry); the first probe that is answered with anything
// but a failure reopens its operation, and the area, at once. Other areas
// are never affected.
//
// The typed methods are one operation each (accessmgmt.UpdateUser...).
// client.Execute calls are grouped as a route groups requests: by method
// and path, each path segment that is not a plain lower-case word (letters,
// '-' and '_') standing for a parameter, so
// PUT /auth/access-management/users/user_01E4… and …/users/user_02B7…
// are one operation, "PUT /auth/access-management/users/{}", and
// POST /auth/access-management/users another. At most 64 operations per
// area are judged on their own (those idle for 2 s are forgotten first);
// beyond that, the rest are judged together, so arbitrary paths cannot
// grow the client's memory.
//
// A refused call fails fast with an error that matches
// what the operation's last failure matched: its 5xx's kind (an
// *errors.Error of that status: errors.ErrServiceUnavailable for a 503,
// ErrInternal for a 500) or errors.ErrTransport (an *errors.TransportError,
// as its attempts without an answer; Timeout() reports true when they
// timed out), and errors.ErrLoadShed, which says it was refused locally;
// errors.RetryAfterOf tells when the operation's next probe goes out, or
// the last 5xx's Retry-After when later. A retry it refuses ends the call
// with the last attempt's error. An observe.ShedObserver is told of every
// refusal (observe.Shed names the operation, and its Scope says whether it
// was shed on its own or with its area), and observe.State.ShedRatioOf
// reads the share of the area's attempts refused.
//
// Scope: client. Default: on.
func WithoutAdmissionControl() RequestOption {
	return clientWide(clientWideLoad, set(func(s *core.Settings) {
		for i := range s.Scopes {
			s.Scopes[i].Admission = nil
		}
	}))
}
