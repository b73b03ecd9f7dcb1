package core

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// log writes one record if a logger is configured. Only allow-listed values
// are logged: operation, method, path template, status, attempt, duration,
// request ID and error text; never headers or bodies.
func (state *callState) log(level slog.Level, msg string, resp *http.Response, err error, extra ...slog.Attr) {
	l := state.s.Logger
	if l == nil {
		return
	}
	ctx := state.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if !l.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 9+len(extra))
	attrs = append(attrs,
		slog.String("operation", state.call.Op.Name),
		slog.String("method", state.call.Op.Method),
		slog.String("path", state.call.Op.Path),
		slog.Int("attempt", state.attempts))
	if !state.start.IsZero() {
		attrs = append(attrs, slog.Duration("duration", time.Since(state.start)))
	}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
		if id := httpx.RequestID(resp.Header); id != "" {
			// Error responses are redacted when read; a 2xx is not, so
			// its request ID is checked here.
			attrs = append(attrs, slog.String("request_id", redactText(id, secretsSent(resp))))
		}
	}
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL may carry a caller's query string
		}
		attrs = append(attrs, slog.String("error", redactText(err.Error(), state.secrets())))
	}
	attrs = append(attrs, extra...)
	l.LogAttrs(ctx, level, "memberplatform: "+msg, attrs...)
}
