package core

import "context"

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
