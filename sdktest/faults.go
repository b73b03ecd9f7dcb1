package sdktest

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// Fault is a scripted response. Give it to FailNext. Most script a failure;
// one with a 2xx Status scripts a success instead, served in place of the
// operation (nothing is stored), to play a platform newer than the fake:
//
//	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusOK,
//		Body:   `{"id":"user_1","email":"ada@example.com","department":"R&D"}`,
//		Header: http.Header{"Sunset": {"Wed, 01 Jul 2026 00:00:00 GMT"}}})
type Fault struct {
	// Operation limits the fault to one operation: an Op* constant, or the
	// pattern of an endpoint added with HandleFunc. "" matches any API
	// operation (the built-in ones and those added with HandleFunc),
	// but not the token endpoint, which is matched only by OpToken.
	Operation string
	// Status is the status to answer: an error, or a 2xx answered with
	// Body (empty for none) and nothing stored. 0 with Reset false and
	// Delay set only delays the request, which is then served normally.
	Status int
	// Header holds extra response headers, such as Retry-After.
	Header http.Header
	// RetryAfter, when positive, sets Retry-After to the duration rounded
	// up to whole seconds.
	RetryAfter time.Duration
	// Body is the raw response body. When empty, a body in the
	// operation's error format is generated from an error Status (a problem
	// document, or a code/message body under /customer); a 2xx has none.
	Body string
	// Fields are field-level errors for the generated body, written in the
	// operation's format: serviceErrors items {detail, pointer} in a
	// problem document, errors items {field, message} in a code/message
	// body. A FieldError's Pointer is used as given, or derived from Field
	// ("permissions[2]" gives "/permissions/2"); its Field is used as
	// given, or derived from Pointer ("/address/postcode" gives
	// "address.postcode"). Fields are ignored when Body is set or Status
	// is not an error.
	Fields []apierrors.FieldError
	// Delay waits this long before answering (or before resetting).
	Delay time.Duration
	// Reset closes the connection without answering, so the client sees a
	// connection reset (or EOF).
	Reset bool
}

type scriptedFault struct {
	Fault
	remaining int
}

// FailNext scripts the next n requests matching f.Operation to be answered
// by f. Faults are used in the order they were scripted; each matching
// request uses up one. Faults apply before authentication.
//
// A client's admission control (on by default) refuses a share of an
// operation's calls locally once 10 or more of its attempts in 2 s failed
// (a 5xx but 501, or a reset), and of its whole area's once every operation
// of the area fails: a test scripting that many failures in a row sees
// some calls fail with errors.ErrLoadShed, unsent, at random. Pass
// option.WithoutAdmissionControl() to the test's client when each scripted
// failure must reach the server.
func (s *Server) FailNext(n int, f Fault) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &scriptedFault{Fault: f, remaining: n})
}

// PendingFaults returns how many scripted fault responses are still unused.
func (s *Server) PendingFaults() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, f := range s.faults {
		n += f.remaining
	}
	return n
}

// ClearFaults drops every unused scripted fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// SetLatency delays every request, token requests included, by d (0
// removes the delay). A request whose client gives up stops waiting.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}

// SetProviderConfigured switches the provider-not-configured mode: when
// false, the access-management operations (and endpoints added under
// /auth/access-management) answer 503 with a problem saying "The
// access-management provider is not configured for this environment". The
// default is true.
func (s *Server) SetProviderConfigured(configured bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notConfigured = !configured
}

type rateLimit struct {
	limit  int
	window time.Duration
	start  time.Time
	count  int
}

// SetRateLimit allows at most limit API requests (token requests excluded)
// per fixed window, starting now; further requests in the window are
// answered 429, in the operation's error format, with Retry-After set to
// the rest of the window (whole seconds, at least 1). For the
// access-management operations the problem says the configured access
// provider rate limited the request. limit <= 0 removes the limit.
func (s *Server) SetRateLimit(limit int, window time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rate = rateLimit{limit: limit, window: window, start: time.Now()}
}

// takeFaultLocked returns the fault for a request to op, if any.
func (s *Server) takeFaultLocked(op string) *Fault {
	for i, f := range s.faults {
		if f.Operation == op || (f.Operation == "" && op != OpToken && op != "") {
			f.remaining--
			if f.remaining <= 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
			cp := f.Fault
			return &cp
		}
	}
	return nil
}

// rateLimitedLocked counts a request against the limit and returns the
// Retry-After to answer with, or 0 when the request may proceed.
func (s *Server) rateLimitedLocked() time.Duration {
	r := &s.rate
	if r.limit <= 0 {
		return 0
	}
	now := time.Now()
	if r.window > 0 && now.Sub(r.start) >= r.window {
		r.start, r.count = now, 0
	}
	r.count++
	if r.count <= r.limit {
		return 0
	}
	wait := time.Second
	if r.window > 0 {
		wait = max(time.Second, r.start.Add(r.window).Sub(now))
	}
	return wait
}

// sleep waits d or until ctx ends; it reports whether the full wait ran.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func retryAfterSeconds(d time.Duration) string {
	secs := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(secs, 1), 10)
}

// resetConnection hijacks the connection and closes it abruptly (with an
// RST where the platform allows).
func resetConnection(w http.ResponseWriter) bool {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return false
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
	return true
}

// faultFields converts a Fault's field errors for rendering, so each keeps
// the pointer and the name the test gave and derives whichever is missing.
func faultFields(fields []apierrors.FieldError) []fieldError {
	out := make([]fieldError, 0, len(fields))
	for _, f := range fields {
		ptr := f.Pointer
		if ptr == "" {
			ptr = pointerFromField(f.Field)
		}
		out = append(out, fieldError{pointer: ptr, message: f.Message, field: f.Field})
	}
	return out
}
