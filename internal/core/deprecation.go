package core

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
	"github.com/memberplatform/memberplatform-go/internal/redact"
	"github.com/memberplatform/memberplatform-go/observe"
)

// deprecationLog remembers the operations a client warned about, so that
// its logger gets one Warn record per operation, not one per call.
type deprecationLog struct {
	// warned holds the operations warned about, by the key admission
	// control judges them by (operationKey): a client.Execute call is
	// warned about once per route, not once per ID in its path (one route
	// called for 256 users was 256 Warn records, and filled the log's
	// keys), and once with the typed method of the route it calls.
	warned sync.Map // operationKey -> struct{}
	keys   atomic.Int32
}

// maxDeprecationKeys bounds the operations a client remembers warning
// about: client.Execute's are its routes, which callers may make many.
const maxDeprecationKeys = 256

// reportDeprecation tells of a final answer that says the call's
// operation is deprecated or has a sunset date: the client's logger once
// per operation, the DeprecationObserver every time. A header it cannot
// read never fails the call. An answer without either header costs two
// map reads.
func (c *Client) reportDeprecation(ctx context.Context, s *Settings, op *Operation, resp *http.Response) {
	d, ok := httpx.DeprecationOf(resp.Header)
	if !ok {
		return
	}
	if d.Link != "" {
		d.Link = redact.New(secretsSent(resp)...).String(d.Link) // a server may echo a credential
	}
	if obs, ok := s.Observer.(observe.DeprecationObserver); ok {
		obs.Deprecated(ctx, observe.Deprecation{Operation: op.Name, Area: op.area(), Route: routeKey(op),
			Deprecated: d.Deprecated, Sunset: d.Sunset, Link: d.Link})
	}
	l := s.Logger
	if l == nil || !l.Enabled(ctx, slog.LevelWarn) || !c.deprecations.firstWarning(operationKey(op)) {
		return
	}
	attrs := []slog.Attr{slog.String("operation", op.Name), slog.String("method", op.Method), slog.String("path", op.Path)}
	if !d.Deprecated.IsZero() {
		attrs = append(attrs, slog.String("deprecated", day(d.Deprecated)))
	}
	if !d.Sunset.IsZero() {
		attrs = append(attrs, slog.String("sunset", day(d.Sunset)))
	}
	if d.Link != "" {
		attrs = append(attrs, slog.String("link", d.Link))
	}
	l.LogAttrs(ctx, slog.LevelWarn, "memberplatform: the platform says this operation is deprecated; move off it before its sunset", attrs...)
}

// routeKey is op's method and path template (observe.Deprecation.Route):
// a client.Execute call's is the wrapped route it calls, else its path
// shape (executeKey), as operationKey finds them.
func routeKey(op *Operation) string {
	if d := routeOp(op); d != nil {
		return d.Method + " " + d.Path
	}
	return executeKey(op.Method, op.Path)
}

// firstWarning reports whether key was not warned about yet, and notes it.
// At most maxDeprecationKeys keys are noted, however many goroutines
// warn at once: each takes its place before it stores its key.
func (l *deprecationLog) firstWarning(key string) bool {
	if _, seen := l.warned.Load(key); seen {
		return false
	}
	for {
		n := l.keys.Load()
		if n >= maxDeprecationKeys {
			return false
		}
		if l.keys.CompareAndSwap(n, n+1) {
			break
		}
	}
	if _, seen := l.warned.LoadOrStore(key, struct{}{}); seen {
		l.keys.Add(-1) // another goroutine noted it first
		return false
	}
	return true
}

// day formats t as a UTC date, such as 2026-07-01.
func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Deprecated tells every DeprecationObserver of o of a deprecated answer.
func (o observers) Deprecated(ctx context.Context, d observe.Deprecation) {
	o.each(func(x observe.Observer) {
		if do, ok := x.(observe.DeprecationObserver); ok {
			do.Deprecated(ctx, d)
		}
	})
}
