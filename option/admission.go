package option

import "github.com/memberplatform/memberplatform-go/internal/core"

// WithoutAdmissionControl turns off the admission control of every area,
// for when another layer sheds load (a service mesh's circuit breaker) or
// every call must reach the platform whatever it answered before.
//
// Admission control refuses a share of an area's attempts locally, at
// once and without sending them, while nearly all of that area's recent
// answers are failures: 5xx answers (but 501 and the provider-not-configured
// problem), or attempts without an answer. It is Google SRE's client-side
// throttling: over the last 2 s of the area's attempts, it refuses an
// attempt with probability max(0, (requests − 5·accepts) / (requests + 1)),
// where accepts are the attempts answered with anything else (2xx, 4xx,
// 429: throttles are the adaptive rate limit's). So it refuses nothing
// while at least a fifth of the answers are accepts (a backend failing 1
// answer in 10, or 7 in 10, loses no attempt), nothing in a quiet area or one with
// fewer than 10 failures in the last 2 s, and nearly everything once the
// backend answers nothing but failures. Even then one call's first
// attempt per 100 ms goes out as a probe (never a retry); the first probe
// that is answered with anything but a failure reopens the area at once. Other areas are never affected.
//
// A refused call fails fast with an error that matches
// what the area's last failure matched: its 5xx's kind (an *errors.Error
// of that status: errors.ErrServiceUnavailable for a 503, ErrInternal for
// a 500) or errors.ErrTransport (an *errors.TransportError, as its
// attempts without an answer), and errors.ErrLoadShed, which says it was
// refused locally; errors.RetryAfterOf tells when the area's next probe
// goes out, or the last 5xx's Retry-After when later. A retry it refuses ends the call with the last
// attempt's error. An observe.ShedObserver is told of every refusal, and
// observe.State.ShedRatioOf reads the share refused.
//
// Scope: client. Default: on.
func WithoutAdmissionControl() RequestOption {
	return clientWide(clientWideLoad, set(func(s *core.Settings) {
		for i := range s.Scopes {
			s.Scopes[i].Admission = nil
		}
	}))
}
