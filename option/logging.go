package option

import (
	"errors"
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
// WithLogger(nil) turns logging off, MEMBERPLATFORM_LOG included. A
// *slog.Logger without a handler (a zero slog.Logger, or slog.New of a nil
// handler pointer) is refused: it would panic on its first record.
//
// Scope: client-wide and per call. Default: no logging, unless
// MEMBERPLATFORM_LOG names a level (see client.EnvLog).
func WithLogger(l *slog.Logger) RequestOption {
	return anywhere(func(s *core.Settings) error {
		if l != nil && (l.Handler() == nil || core.NilInside(l.Handler())) {
			// A zero slog.Logger, or one around a nil handler, panics on
			// its first record: only nil means "no logging".
			return errors.New("memberplatform: option.WithLogger: a *slog.Logger with a nil handler panics on its first record; build it with slog.New, or pass nil for no logging")
		}
		s.Logger = l
		return nil
	})
}
