package core

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	stderrors "errors"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// RetryPolicy configures retries. The zero value of a field means "use the
// default" only through DefaultRetryPolicy; options set fields explicitly.
type RetryPolicy struct {
	// What option.WithMaxRetries, WithRetryBackoff and WithMaxRetryAfter
	// set (their documentation says what each means).
	MaxRetries                         int
	BaseDelay, MaxDelay, MaxRetryAfter time.Duration
	// Rand returns a float in [0,1) for jitter; nil uses math/rand/v2.
	Rand func() float64
	// Now returns the current time; nil uses time.Now. It is used to
	// resolve an HTTP-date Retry-After and to compare the end of a wait with
	// the context's deadline (the sleep itself uses real timers).
	Now func() time.Time
	// OnRetry, if set, is called with the retry number (1 for the first
	// retry) and the wait the policy chose, just before the client sleeps
	// for it. For tests and metrics; it must be safe for concurrent use.
	OnRetry func(retry int, wait time.Duration)
}

// DefaultRetryPolicy returns the SDK's retry defaults.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, BaseDelay: 250 * time.Millisecond, MaxDelay: 8 * time.Second, MaxRetryAfter: 20 * time.Second}
}

func (p *RetryPolicy) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// Backoff returns the wait before retry number retry (0 for the first
// retry): full jitter over min(MaxDelay, BaseDelay·2^retry).
func (p *RetryPolicy) Backoff(retry int) time.Duration {
	ceil := float64(p.BaseDelay) * math.Pow(2, float64(retry))
	if ceil > float64(p.MaxDelay) || math.IsInf(ceil, 0) {
		ceil = float64(p.MaxDelay)
	}
	r := 0.0
	if p.Rand != nil {
		r = p.Rand()
	} else {
		r = rand.Float64()
	}
	return time.Duration(r * ceil)
}

// Decision is what the policy decided after one attempt.
type Decision int

// Decisions.
const (
	Done           Decision = iota // not retriable, or success
	Retry                          // wait Wait, then retry
	StopExhausted                  // retriable, but no retries left
	StopRetryAfter                 // the server asked for longer than MaxRetryAfter
	StopDeadline                   // the wait would end after the context deadline
	StopBudget                     // retriable, but the client's retry budget is empty (budget.go)
)

// Decide applies the policy to the outcome of attempt number attempt
// (1-based): apiErr is the decoded error response (nil for a 2xx or no
// response) and err the transport error (nil when a response arrived). It
// returns the decision and, for Retry, the wait. idempotent says whether the
// request may be repeated after it reached the server.
func (p *RetryPolicy) Decide(ctx context.Context, attempt int, idempotent bool, apiErr *apierrors.Error, err error) (Decision, time.Duration) {
	if ctx.Err() != nil || !Retriable(idempotent, apiErr, err) {
		return Done, 0
	}
	if attempt > p.MaxRetries {
		return StopExhausted, 0
	}
	wait := p.Backoff(attempt - 1)
	if apiErr != nil && (apiErr.StatusCode == http.StatusTooManyRequests || apiErr.StatusCode == http.StatusServiceUnavailable) {
		if ra, ok := httpx.RetryAfter(apiErr.Header, p.now()); ok {
			if ra > p.MaxRetryAfter {
				return StopRetryAfter, ra
			}
			wait = ra
		}
	}
	if dl, ok := ctx.Deadline(); ok && p.now().Add(wait).After(dl) {
		return StopDeadline, wait
	}
	return Retry, wait
}

// givesUp reports whether d stopped a call the policy would otherwise have
// retried: the case the give-up log record is for.
func (d Decision) givesUp() bool { return d != Done && d != Retry }

// String says why the attempts stopped, for the give-up log record.
func (d Decision) String() string {
	switch d {
	case Done:
		return "done"
	case Retry:
		return "retry"
	case StopExhausted:
		return "retries exhausted"
	case StopRetryAfter:
		return "Retry-After exceeds the configured maximum"
	case StopDeadline:
		return "next retry would end after the context deadline"
	case StopBudget:
		return "retry budget exhausted"
	}
	return "unknown"
}

// Retriable reports whether an attempt's outcome may be retried: a
// response (*errors.Error).Temporary calls so, for an idempotent request;
// an error known to be transient (transientError), never one the SDK
// cannot classify, since the same request would fail the same way. A
// non-idempotent request is retried only when the connection failed
// before the request was written (a dial or proxy connect error).
func Retriable(idempotent bool, apiErr *apierrors.Error, err error) bool {
	if err != nil {
		return retriableError(idempotent, err)
	}
	return apiErr != nil && idempotent && apiErr.Temporary()
}

func retriableError(idempotent bool, err error) bool {
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var recordErr tls.RecordHeaderError
	var alertErr tls.AlertError
	if stderrors.As(err, &certErr) || stderrors.As(err, &unknownAuth) || stderrors.As(err, &hostErr) ||
		stderrors.As(err, &invalid) || stderrors.As(err, &recordErr) || stderrors.As(err, &alertErr) {
		return false
	}
	var uerr *url.Error
	if stderrors.As(err, &uerr) && (uerr.Op == "parse" || stderrors.Is(uerr.Err, http.ErrSchemeMismatch)) {
		return false
	}
	// A DNS failure is wrapped in a dial *net.OpError: check it first, so a
	// name that does not exist is not retried.
	var dnsErr *net.DNSError
	if stderrors.As(err, &dnsErr) {
		return dnsErr.IsTemporary || dnsErr.IsTimeout
	}
	var opErr *net.OpError
	if stderrors.As(err, &opErr) && (opErr.Op == "dial" || opErr.Op == "proxyconnect") {
		return true // nothing was sent: safe even for a non-idempotent request
	}
	return idempotent && transientError(err)
}

// transientErrnos are the connection failures worth another attempt. On
// Windows the same failures carry WSA codes instead; they arrive inside a
// read or write *net.OpError, which transientError accepts as well.
var transientErrnos = []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE}

// transientTexts are failures net/http reports only as unexported errors
// built with errors.New, so their text is all there is to match: an HTTP/1
// keep-alive connection the server closed just as it was reused (net/http
// returns errServerClosedIdle undecorated for a request it will not replay
// itself, such as a PUT), and an HTTP/2 connection lost to a failed ping or
// closed after a GOAWAY. The HTTP/2 failures net/http can retry itself
// (graceful GOAWAY, REFUSED_STREAM) it does retry: the SDK's requests carry
// GetBody.
var transientTexts = []string{
	"http: server closed idle connection",
	"http2: client connection lost",
	"http2: server sent GOAWAY and closed the connection",
}

// transientError reports whether err is known to be transient. A body read
// error from the attempts wraps its cause, so it is judged by that cause.
func transientError(err error) bool {
	for _, e := range transientErrnos {
		if stderrors.Is(err, e) {
			return true
		}
	}
	if stderrors.Is(err, io.EOF) || stderrors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var opErr *net.OpError
	if stderrors.As(err, &opErr) && (opErr.Op == "read" || opErr.Op == "write" || opErr.Op == "dial") {
		return true
	}
	if httpx.IsTimeout(err) {
		return true
	}
	msg := err.Error()
	for _, t := range transientTexts {
		if strings.Contains(msg, t) {
			return true
		}
	}
	return false
}
