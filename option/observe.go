package option

import (
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/observe"
)

// WithObserver gives the client an observer (package observe) that sees
// every call, HTTP attempt, token fetch, retry decision, rate-limit wait and
// retry-budget refusal, and can read the retry budget and the pacer's rate
// for gauges. It is how telemetry is plugged in; for OpenTelemetry, use the
// options of module
// github.com/memberplatform/memberplatform-go/otelmemberplatform, which are
// built on it.
//
// Several observers are called in the order given, unless one is an
// observe.Combiner that merges with the one before it. A nil observer
// changes nothing; a nil pointer is refused.
//
// Scope: client-wide; passing it to a single call fails. Default: none, and
// then observation costs nothing.
func WithObserver(o observe.Observer) RequestOption {
	return clientWide(clientWideObserver, func(s *core.Settings) error { return s.AddObserver(o) })
}
