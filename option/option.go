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

import "github.com/memberplatform/memberplatform-go/internal/core"

// RequestOption configures a client or one call. Build one with the With…
// functions of this package.
type RequestOption interface {
	// The method is unexported so that every option is built, and
	// documented, in this package.
	isRequestOption()
}

// requestOption is every RequestOption: a change to the pipeline's
// settings. The pipeline applies it through core.Applier.
type requestOption func(*core.Settings) error

func (requestOption) isRequestOption() {}

// ApplyTo applies the option to s.
func (o requestOption) ApplyTo(s *core.Settings) error { return o(s) }
