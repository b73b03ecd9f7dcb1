package core

import (
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
	"github.com/memberplatform/memberplatform-go/internal/redact"
)

// logState is what a call's logging keeps.
type logState struct {
	start time.Time // of the current attempt, with a logger
}

// attemptLogClock notes when an attempt starts, for its record.
func (state *callState) attemptLogClock() {
	if state.s.Logger != nil {
		state.start = time.Now() // read the clock only for a log record
	}
}

// log writes one record to the call's logger, if enabled: only allow-listed
// values (operation, method, path template, attempt, duration, status,
// request ID, error text), never headers or bodies. Callers test s.Logger
// first, so an unlogged call stays out of this file (doc.go).
func (state *callState) log(level slog.Level, msg string, resp *http.Response, err error, extra ...slog.Attr) {
	l := state.s.Logger
	if l == nil || !l.Enabled(state.ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 9+len(extra))
	attrs = append(attrs,
		slog.String("operation", state.op.Name),
		slog.String("method", state.op.Method),
		slog.String("path", state.op.Path),
		slog.Int("attempt", state.attempts))
	if !state.start.IsZero() {
		attrs = append(attrs, slog.Duration("duration", time.Since(state.start)))
	}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
		if id := httpx.RequestID(resp.Header); id != "" {
			// An error response was redacted when read; a 2xx was not.
			attrs = append(attrs, slog.String("request_id", redact.New(secretsSent(resp)...).String(id)))
		}
	}
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL may carry a caller's query string
		}
		attrs = append(attrs, slog.String("error", state.scrub(err.Error())))
	}
	l.LogAttrs(state.ctx, level, "memberplatform: "+msg, append(attrs, extra...)...)
}
