package core

import (
	"context"

	memberplatform "github.com/memberplatform/memberplatform-go"
)

// settingsOption is an option as a test writes it: a function of the
// settings, applied through Applier like option.RequestOption.
type settingsOption func(*Settings) error

func (o settingsOption) ApplyTo(s *Settings, _ bool) error { return o(s) }

// do runs call through the pipeline with opts.
func (c *Client) do(ctx context.Context, call *Call, opts ...func(*Settings) error) error {
	wrapped := make([]settingsOption, len(opts))
	for i, o := range opts {
		wrapped[i] = o
	}
	return Do(ctx, c, call, wrapped)
}

// other returns the scope of the "other" area, which the tests' operations
// (declared without an area) use.
func other(s *Settings) *Scope { return &s.Scopes[AreaIndex(memberplatform.AreaOther)] }
