// Package option holds the options of memberplatform-go. The same
// RequestOption values configure a client, passed to client.New, and a
// single call, passed as the trailing arguments of any operation:
//
//	c, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithMaxRetries(5))
//	u, err := c.AccessMgmt.UpdateUser(ctx, id, params, option.WithTimeout(2*time.Second))
//
// Options apply in order; a per-call option overrides the client's setting
// for that call only. Each option's documentation ends with the same two
// facts: where it applies (client-wide, per call, or both) and its default.
// An invalid option makes client.New, or the call, fail with an
// *errors.ValidationError before anything is sent; a nil RequestOption is
// ignored.
package option

import (
	"errors"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// RequestOption configures a client or one call. Build one with the With…
// functions of this package.
type RequestOption interface {
	// The method is unexported so that every option is built, and
	// documented, in this package.
	isRequestOption()
}

// requestOption is every RequestOption: a change to the pipeline's
// settings, and where it applies. The pipeline applies it through
// core.Applier.
type requestOption struct {
	apply func(*core.Settings) error
	// clientOnly (callOnly) is the refusal when the option is given to a
	// single call (to client.New); "" when it applies there.
	clientOnly, callOnly string
}

func (requestOption) isRequestOption() {}

// ApplyTo applies the option to s, a call's settings when perCall, else
// the client's.
func (o requestOption) ApplyTo(s *core.Settings, perCall bool) error {
	switch {
	case perCall && o.clientOnly != "":
		return errors.New("memberplatform: " + o.clientOnly)
	case !perCall && o.callOnly != "":
		return errors.New("memberplatform: " + o.callOnly)
	}
	return o.apply(s)
}

// anywhere is an option for client.New and for single calls.
func anywhere(apply func(*core.Settings) error) requestOption {
	return requestOption{apply: apply}
}

// Refusals of options out of their scope.
const (
	clientWideAuth     = "WithTokenSource and WithSigV4 apply to client.New, not to a single call"
	clientWideLoad     = "WithRetryBudget, WithRateLimiter, WithAdaptiveRateLimit and WithoutAdaptiveRateLimit apply to client.New, not to a single call"
	clientWideObserver = "WithObserver and the OpenTelemetry options apply to client.New, not to a single call"
)

// clientWide is an option for client.New only; refusal says so to a call.
func clientWide(refusal string, apply func(*core.Settings) error) requestOption {
	return requestOption{apply: apply, clientOnly: refusal}
}
