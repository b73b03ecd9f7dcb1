package sdktest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/internal/core"
)

// isAccessManagement reports whether op, requested at path, is served by
// the access provider: an operation declared in its area or an endpoint
// added under /auth/access-management (such as createUser). The
// provider-not-configured mode and the provider's rate-limit wording apply
// to them.
func isAccessManagement(op, path string) bool {
	if d := declared(op); d != nil {
		return d.Area == memberplatform.AreaAccessMgmt
	}
	return core.AreaOfPath(path) == memberplatform.AreaAccessMgmt
}

// declared returns the declaration of the operation named op, or nil for
// an endpoint added with HandleFunc and for an unknown route.
func declared(op string) *core.Operation {
	for _, d := range core.Operations() {
		if d.Name == op {
			return d
		}
	}
	return nil
}

// routeOf is the ServeMux pattern of a declared operation.
func routeOf(op *core.Operation) string { return op.Method + " " + op.Path }

// handlerFunc serves one operation: it returns the success status and
// body, or an error response.
type handlerFunc func(r *http.Request, body []byte) (int, any, *apiError)

// unknownRoutePattern catches every request no endpoint matches.
const unknownRoutePattern = "/"

// routes serves every declared operation at its declared pattern with its
// handler from handlers; an operation without one answers 501.
func (s *Server) routes(handlers map[string]handlerFunc) *http.ServeMux {
	mux := http.NewServeMux()
	for _, op := range core.Operations() {
		fn := handlers[op.Name]
		if fn == nil {
			fn = func(*http.Request, []byte) (int, any, *apiError) {
				return 0, nil, newError("not-implemented", "sdktest does not implement "+op.Name+" yet")
			}
		}
		mux.Handle(routeOf(op), s.wrap(op.Name, fn))
	}
	mux.Handle(unknownRoutePattern, s.wrap("", func(r *http.Request, _ []byte) (int, any, *apiError) {
		return 0, nil, newError("not-found", "no operation "+r.Method+" "+r.URL.EscapedPath())
	}))
	return mux
}

//go:generate go run ../internal/cmd/genops

// handlers is the fake's behaviour, by operation name: one function per
// declared operation (TestEveryOperationHasAHandler).
func (s *Server) handlers() map[string]handlerFunc {
	return map[string]handlerFunc{
		OpToken: s.token, OpUpdateUser: s.updateUser, OpReplaceRolePermissions: s.replaceRolePermissions,
		OpUpdatePaymentMethod: s.updatePaymentMethod, OpUpsertMemberAddress: s.upsertMemberAddress,
	}
}

// statusRecorder remembers the status written.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write records the implicit 200 of a handler that writes a body without
// calling WriteHeader.
func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets handlers registered with HandleFunc stream, as they could on
// a plain ResponseWriter.
func (w *statusRecorder) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

const maxBody = 1 << 20

// wrap serves a built-in operation: fn's status and body are written as
// JSON, its error in the operation's format.
func (s *Server) wrap(op string, fn handlerFunc) http.Handler {
	return s.serve(op, func(w http.ResponseWriter, r *http.Request, body []byte) {
		status, out, e := fn(r, body)
		if e != nil {
			s.writeError(w, r, op, e)
			return
		}
		b, err := json.Marshal(out)
		if err != nil {
			s.writeError(w, r, op, newError("internal-server-error", err.Error()))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(b)
	})
}

// serve is what every endpoint shares: it records the request, applies the
// latency, scripted faults, body limit and, for API operations, the gate,
// then calls next with the body read.
func (s *Server) serve(op string, next func(w http.ResponseWriter, r *http.Request, body []byte)) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, readErr := io.ReadAll(http.MaxBytesReader(rw, r.Body, maxBody))
		s.mu.Lock()
		s.reqSeq++
		reqID := fmt.Sprintf("sdktest-%06d", s.reqSeq)
		idx := len(s.requests)
		s.requests = append(s.requests, Request{Operation: op, Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
		if op == OpToken {
			s.tokenRequests++
		}
		fault := s.takeFaultLocked(op)
		latency := s.latency
		s.mu.Unlock()

		w := &statusRecorder{ResponseWriter: rw}
		faulted := false
		defer func() {
			s.mu.Lock()
			s.requests[idx].Status = w.status
			s.requests[idx].Faulted = faulted
			s.mu.Unlock()
		}()
		w.Header().Set("X-Request-Id", reqID)
		if !sleep(r.Context(), latency) {
			return
		}
		if fault != nil {
			if !sleep(r.Context(), fault.Delay) {
				return
			}
			if fault.Reset {
				faulted = true
				resetConnection(rw)
				return
			}
			if fault.Status != 0 {
				faulted = true
				s.writeFault(w, r, op, fault)
				return
			}
		}
		if readErr != nil {
			s.writeError(w, r, op, newError("bad-request", "request body unreadable or larger than 1 MiB"))
			return
		}
		if op != OpToken && op != "" {
			if e := s.gate(op, r); e != nil {
				faulted = e.kind.status == http.StatusTooManyRequests
				s.writeError(w, r, op, e)
				return
			}
		}
		next(w, r, body)
	})
}

// gate applies authentication, the provider-not-configured mode and the
// rate limit, in that order.
func (s *Server) gate(op string, r *http.Request) *apiError {
	if s.cfg.authRequired {
		if err := s.verifyBearer(r.Header.Get("Authorization"), time.Now()); err != nil {
			return newError("unauthorized", err.Error())
		}
	}
	s.mu.Lock()
	notConfigured := s.notConfigured
	s.mu.Unlock()
	if notConfigured && isAccessManagement(op, r.URL.Path) {
		return newError("provider-not-configured", "The access-management provider is not configured for this environment")
	}
	s.mu.Lock()
	wait := s.rateLimitedLocked()
	s.mu.Unlock()
	if wait > 0 {
		detail := "Rate limit exceeded"
		if isAccessManagement(op, r.URL.Path) {
			detail = "The configured access provider rate limited the request"
		}
		e := newError("rate-limited", detail)
		e.header = http.Header{"Retry-After": {retryAfterSeconds(wait)}}
		return e
	}
	return nil
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, op string, e *apiError) {
	ct, b := e.render(formatFor(op, r.URL.Path), r.URL.EscapedPath())
	for k, v := range e.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(e.kind.status)
	_, _ = w.Write(b)
}

func (s *Server) writeFault(w http.ResponseWriter, r *http.Request, op string, f *Fault) {
	for k, v := range f.Header {
		w.Header()[k] = v
	}
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", retryAfterSeconds(f.RetryAfter))
	}
	if f.Body == "" {
		k := kindForStatus(f.Status)
		detail := "Scripted " + strconv.Itoa(f.Status) + " response"
		if f.Status == http.StatusTooManyRequests && isAccessManagement(op, r.URL.Path) {
			detail = "The configured access provider rate limited the request"
		}
		if f.Status >= 200 && f.Status < 300 {
			w.WriteHeader(f.Status)
			return
		}
		ct, b := (&apiError{kind: k, detail: detail, fields: faultFields(f.Fields)}).render(formatFor(op, r.URL.Path), r.URL.EscapedPath())
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", ct)
		}
		w.WriteHeader(f.Status)
		_, _ = w.Write(b)
		return
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(f.Status)
	_, _ = io.WriteString(w, f.Body)
}

// withRecord runs change with s.mu held on the record m holds for id, or
// answers missing when it holds none: each operation checks the request
// first, without the lock, then finds and changes one record under it.
func withRecord[T any](s *Server, m map[string]T, id string, missing *apiError, change func(T) (int, any, *apiError)) (int, any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := m[id]
	if !ok {
		return 0, nil, missing
	}
	return change(rec)
}
