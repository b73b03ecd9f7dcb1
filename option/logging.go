package option

import (
	"log/slog"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// WithLogger logs one Debug record per HTTP attempt (operation, method,
// path template, status, attempt, duration, request ID) and a Warn record
// for each retry and give-up. Only those allow-listed values are logged:
// never headers, tokens, signatures or bodies. The context passed to the
// operation reaches the handler, so a trace-aware handler can correlate
// records with spans.
//
// WithLogger(nil) turns logging off, MEMBERPLATFORM_LOG included.
//
// Scope: client-wide and per call. Default: no logging, unless
// MEMBERPLATFORM_LOG names a level (see client.EnvLog).
func WithLogger(l *slog.Logger) RequestOption {
	return requestOption(func(s *core.Settings) error {
		s.Logger, s.LoggerSet = l, true
		return nil
	})
}
