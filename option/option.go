// Package option holds the options of memberplatform-go. The same
// RequestOption values configure a client, passed to client.New, and a
// single call, passed as the trailing arguments of any operation:
//
//	c, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithMaxRetries(5))
//	u, err := c.AccessMgmt.UpdateUser(ctx, id, params, option.WithTimeout(2*time.Second))
//
// Options apply in order, a call's over the client's for that call only; a
// nil one is ignored. Each option's doc ends with its scope (client:
// client.New only, and a call given it fails; call: one call only; both)
// and default. An invalid option, such as an interface holding a nil
// pointer, fails client.New or the call with an *errors.ValidationError
// before anything is sent.
package option

import (
	"errors"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// RequestOption configures a client or one call. Build one with the With…
// functions of this package, the only place options are built.
type RequestOption interface{ isRequestOption() }

// requestOption is every RequestOption: a change to the settings, and the
// refusal when given out of its scope ("" for none).
type requestOption struct {
	apply                func(*core.Settings) error
	clientOnly, callOnly string
}

func (requestOption) isRequestOption() {}

// ApplyTo applies the option to a call's settings when perCall, else the client's.
func (o requestOption) ApplyTo(s *core.Settings, perCall bool) error {
	switch {
	case perCall && o.clientOnly != "":
		return errors.New("memberplatform: " + o.clientOnly)
	case !perCall && o.callOnly != "":
		return errors.New("memberplatform: " + o.callOnly)
	}
	return o.apply(s)
}

// set is an option that applies f.
func set(f func(*core.Settings)) requestOption { return checked(false, "", f) }

// checked is an option that refuses itself with msg when bad, else applies f.
func checked(bad bool, msg string, f func(*core.Settings)) requestOption {
	return requestOption{apply: func(s *core.Settings) error {
		if bad {
			return errors.New("memberplatform: " + msg)
		}
		f(s)
		return nil
	}}
}

// Refusals of client-wide options given to a single call.
const (
	clientWideAuth     = "WithTokenSource and WithSigV4 apply to client.New, not to a single call"
	clientWideLoad     = "WithRetryBudget, WithRateLimiter, WithAdaptiveRateLimit, WithoutAdaptiveRateLimit and WithoutAdmissionControl apply to client.New, not to a single call"
	clientWideObserver = "WithObserver and the OpenTelemetry options apply to client.New, not to a single call"
	clientWidePool     = "WithMaxConnsPerHost applies to client.New, not to a single call"
)

// clientWide restricts o to client.New.
func clientWide(refusal string, o requestOption) requestOption {
	o.clientOnly = refusal
	return o
}
