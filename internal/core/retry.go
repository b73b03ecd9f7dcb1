package core

import (
	"cmp"
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
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// RetryPolicy configures retries. Options set every field; DefaultRetryPolicy
// gives the defaults.
type RetryPolicy struct {
	// What option.WithMaxRetries, WithRetryBackoff and WithMaxRetryAfter
	// set; a rate-limited answer may be retried twice MaxRetries times
	// (retriesFor).
	MaxRetries                         int
	BaseDelay, MaxDelay, MaxRetryAfter time.Duration
	Statuses                           RetryStatuses // option.WithRetryOn and WithoutRetryOn (retrystatus.go)
	// Rand returns a float in [0,1) for jitter; nil uses math/rand/v2.
	Rand func() float64
	// Now resolves an HTTP-date Retry-After and compares the end of a wait
	// with the context's deadline; nil uses time.Now.
	Now func() time.Time
	// OnRetry, if set, is called with the retry number (1 for the first)
	// and the wait, before the wait. It must be safe for concurrent use.
	OnRetry func(retry int, wait time.Duration)

	paced bool // the area's pacer spaces the attempts: no jitter on a Retry-After (retryafter.go)
}

// DefaultRetryPolicy returns the SDK's retry defaults.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, BaseDelay: 250 * time.Millisecond, MaxDelay: 8 * time.Second, MaxRetryAfter: 20 * time.Second}
}

// clock calls now, or time.Now when it is nil.
func clock(now func() time.Time) time.Time {
	if now != nil {
		return now()
	}
	return time.Now()
}

// Backoff returns the wait before retry number retry (0 for the first):
// full jitter over min(MaxDelay, BaseDelay·2^retry).
func (p *RetryPolicy) Backoff(retry int) time.Duration {
	ceil := float64(p.BaseDelay) * math.Pow(2, float64(retry))
	if ceil > float64(p.MaxDelay) || math.IsInf(ceil, 0) {
		ceil = float64(p.MaxDelay)
	}
	if p.Rand != nil {
		return time.Duration(p.Rand() * ceil)
	}
	return time.Duration(rand.Float64() * ceil)
}

// Decision is what the policy decided after one attempt.
type Decision int

// Decisions.
const (
	Done           Decision = iota // not retriable, or success
	Retry                          // wait, then retry
	StopExhausted                  // retriable, but no retries left
	StopRetryAfter                 // the server asked for longer than MaxRetryAfter
	StopDeadline                   // the wait would end after the context deadline
	StopBudget                     // retriable, but the client's retry budget is empty
	StopShed                       // retriable, but admission control refused the retry (admission.go)
)

// Decide applies the policy to attempt number attempt (1-based), which
// ended with the error response apiErr or the transport error err.
func (p *RetryPolicy) Decide(ctx context.Context, attempt int, idempotent bool, apiErr *apierrors.Error, err error) (Decision, time.Duration) {
	if ctx.Err() != nil || !p.retriable(idempotent, apiErr, err) {
		return Done, 0
	}
	if attempt > p.retriesFor(apiErr) {
		return StopExhausted, 0
	}
	// A throttle retried past MaxRetries waits as the last of those did,
	// not longer: a call waiting out a doubled backoff (up to MaxDelay)
	// when a storm of 429s heals holds its caller back for nothing.
	wait, jitter := p.Backoff(min(attempt, max(p.MaxRetries, 1))-1), time.Duration(0)
	if apiErr != nil && (apiErr.StatusCode == http.StatusTooManyRequests || apiErr.StatusCode == http.StatusServiceUnavailable ||
		p.Statuses.On.Has(apiErr.StatusCode)) { // a status the caller retries waits its Retry-After too
		if ra, ok := httpx.RetryAfter(apiErr.Header, clock(p.Now)); ok {
			if ra > p.MaxRetryAfter {
				return StopRetryAfter, ra
			}
			wait, jitter = ra, p.retryAfterJitter(ra) // spread out on top of it (retryafter.go)
		}
	}
	now := clock(p.Now)
	if dl, ok := ctx.Deadline(); ok && now.Add(wait).After(dl) {
		return StopDeadline, wait
	}
	return Retry, wait + fitJitter(ctx, now, wait, jitter)
}

// throttleRetries is how many times MaxRetries a call whose last answer
// was rate-limited is retried. A throttle is the provider asking it to
// come back, not a failure: a hot partition that throttles 1 answer in 10
// whatever the rate failed 1 call in about 10,000 with 3 retries (4 in a
// row), and fails 1 in 10 million with 6. A provider refusing everything
// is held back by the pacer, the Retry-After and the call's deadline.
const throttleRetries = 2

// retriesFor returns how many retries a call whose last answer was apiErr
// may have made: MaxRetries, twice that after a rate-limited answer (at
// most math.MaxInt: WithMaxRetries(math.MaxInt) retries until the deadline).
func (p *RetryPolicy) retriesFor(apiErr *apierrors.Error) int {
	if rateLimited(apiErr) {
		return p.MaxRetries * min(throttleRetries, math.MaxInt/max(p.MaxRetries, 1))
	}
	return p.MaxRetries
}

// givesUp reports whether d stopped a call that was worth retrying.
func (d Decision) givesUp() bool { return d != Done && d != Retry }

// String says why the attempts stopped, for the give-up log record.
func (d Decision) String() string { return decisionText[d] }

var decisionText = [...]string{Done: "done", Retry: "retry", StopExhausted: "retries exhausted",
	StopRetryAfter: "Retry-After exceeds the configured maximum", StopDeadline: "next retry would end after the context deadline",
	StopBudget: "retry budget exhausted", StopShed: "admission control refused the retry: nearly all of the area's recent attempts failed"}

// Retriable reports whether an attempt's outcome may be retried: a Temporary
// error response or a known transient error, for an idempotent request; for
// any request, a connection that failed before it was written. An error the
// SDK cannot classify would fail the same way again.
func Retriable(idempotent bool, apiErr *apierrors.Error, err error) bool {
	if err != nil {
		return retriableError(idempotent, err)
	}
	return apiErr != nil && idempotent && apiErr.Temporary()
}

func retriableError(idempotent bool, err error) bool {
	if _, refused := stderrors.AsType[*directError](err); refused {
		return false // a credential kept off a non-loopback peer: it would be refused again
	}
	for _, tlsErr := range []any{new(*tls.CertificateVerificationError), new(x509.UnknownAuthorityError),
		new(x509.HostnameError), new(x509.CertificateInvalidError), new(tls.RecordHeaderError), new(tls.AlertError)} {
		if stderrors.As(err, tlsErr) {
			return false // the same request would fail the same way
		}
	}
	var uerr *url.Error
	if stderrors.As(err, &uerr) && (uerr.Op == "parse" || stderrors.Is(uerr.Err, http.ErrSchemeMismatch)) {
		return false
	}
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

// transientErrs are the connection failures worth another attempt.
var transientErrs = []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE, io.EOF, io.ErrUnexpectedEOF}

// transientTexts are transient failures net/http reports only as
// unexported errors.New values.
var transientTexts = []string{
	"http: server closed idle connection",
	"http2: client connection lost",
	"http2: server sent GOAWAY and closed the connection",
}

// transientError reports whether err, or its cause, is known to be transient.
func transientError(err error) bool {
	if slices.ContainsFunc(transientErrs, func(e error) bool { return stderrors.Is(err, e) }) {
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
	return slices.ContainsFunc(transientTexts, func(t string) bool { return strings.Contains(msg, t) })
}

// BudgetConfig sizes a retry budget (option.WithRetryBudget), in tokens.
type BudgetConfig struct {
	Capacity int // the budget when full, and where it starts
	// What a retry costs after a throttle (unpaced, paced), another error
	// response, and a connection failure or timeout.
	ThrottleCost, PacedThrottleCost, ErrorCost, TimeoutCost int
	SuccessRefill                                           int // put back by a healthy first answer; a healthy retry refunds its cost
}

// DefaultBudgetConfig returns the budget's defaults.
func DefaultBudgetConfig() BudgetConfig {
	return BudgetConfig{Capacity: 500, ThrottleCost: 5, PacedThrottleCost: 0, ErrorCost: 10, TimeoutCost: 15, SuccessRefill: 1}
}

// RetryBudget keeps retries from multiplying the load on a failing service:
// the calls of one area of a client share its tokens, and an empty budget
// stops retries, not first attempts.
type RetryBudget struct {
	cfg    BudgetConfig
	tokens atomic.Int64
}

// NewRetryBudget returns a full budget sized by cfg.
func NewRetryBudget(cfg BudgetConfig) *RetryBudget {
	b := &RetryBudget{cfg: cfg}
	b.tokens.Store(int64(cfg.Capacity))
	return b
}

// Config returns the budget's configuration.
func (b *RetryBudget) Config() BudgetConfig { return b.cfg }

// Tokens returns the tokens left.
func (b *RetryBudget) Tokens() int { return int(b.tokens.Load()) }

// take spends cost tokens if the budget holds that many.
func (b *RetryBudget) take(cost int) bool {
	for {
		t := b.tokens.Load()
		if t < int64(cost) {
			return false
		}
		if b.tokens.CompareAndSwap(t, t-int64(cost)) {
			return true
		}
	}
}

// give puts n tokens back, up to the capacity. A full budget is only read,
// so healthy calls do not contend on it.
func (b *RetryBudget) give(n int) {
	for {
		t := b.tokens.Load()
		full := int64(b.cfg.Capacity)
		if t >= full || n <= 0 {
			return
		}
		next := full // also when t+n would overflow (a capacity of math.MaxInt)
		if int64(n) < full-t {
			next = t + int64(n)
		}
		if b.tokens.CompareAndSwap(t, next) {
			return
		}
	}
}

// budgetState is what the budget keeps about one send, in its callState.
type budgetState struct {
	retryCost    int  // what the last retry took, given back on a healthy answer
	retryPending bool // a retry was paid for and has not gone out yet
}

// decide is the policy's decision, with a retry paid for from the budget:
// StopBudget when it cannot pay.
func (state *callState) decide(ctx context.Context, apiErr *apierrors.Error, err error) (Decision, time.Duration) {
	policy := state.s.Retry
	// No jitter while the area's pacer spaces the retries, nor after a
	// throttle of the resource's own, whose retries SpaceRetry spaces
	// (retryafter.go, resources.go).
	policy.paced = state.own || state.scope.Pacer != nil && state.scope.Pacer.Engaged()
	d, wait := policy.Decide(ctx, state.attempts, state.op.Idempotent || state.s.Idempotent, apiErr, err)
	if d == StopRetryAfter && apiErr.Err == nil && (apiErr.StatusCode == http.StatusServiceUnavailable || rateLimited(apiErr)) { // a 503 says "rate limited" by asking for a wait too
		apiErr.Err = markedError{sentinel: apierrors.ErrRateLimited, note: "not retried: the Retry-After exceeds WithMaxRetryAfter"}
	}
	if d == Retry && !state.admitRetry() { // before the budget: a refused retry costs nothing
		if apiErr != nil {
			apiErr.Err = state.shedCause(state.refusal, nil)
		}
		return StopShed, wait
	}
	b := state.scope.Budget
	if d != Retry || b == nil {
		return d, wait
	}
	cost := b.cfg.ErrorCost
	switch {
	case err != nil:
		cost = b.cfg.TimeoutCost
	case rateLimited(apiErr) && state.scope.Pacer != nil:
		cost = b.cfg.PacedThrottleCost
	case rateLimited(apiErr):
		cost = b.cfg.ThrottleCost
	}
	if !b.take(cost) {
		if apiErr != nil {
			apiErr.Err = budgetStopped(nil)
		}
		return StopBudget, wait
	}
	state.retryCost, state.retryPending = cost, true
	return Retry, wait
}

// retryWentOut notes that the paid retry went out: its answer settles it.
func (state *callState) retryWentOut() { state.retryPending = false }

// refundRetry gives back a retry that was paid for and never sent: only
// retries that reach the service drain the budget.
func (state *callState) refundRetry() {
	if b := state.scope.Budget; b != nil && state.retryPending {
		b.give(state.retryCost)
		state.retryPending, state.retryCost = false, 0
	}
}

// settleBudget refills the budget after a final answer that shows the
// service working: a 2xx (apiErr nil), or an error response other than
// 408, 429 or 5xx.
func (state *callState) settleBudget(apiErr *apierrors.Error) {
	if b := state.scope.Budget; b != nil &&
		(apiErr == nil || apiErr.StatusCode < http.StatusInternalServerError && !apiErr.Temporary()) {
		b.give(cmp.Or(state.retryCost, b.cfg.SuccessRefill))
	}
}

// rateLimited reports whether an error response says the client sends too
// fast: a 429, or the contract's rate-limited problem at any status. Kind
// reads Decode's classification; Is(ErrRateLimited) would cost allocations.
func rateLimited(apiErr *apierrors.Error) bool {
	return apiErr != nil && (apiErr.StatusCode == http.StatusTooManyRequests || apiErr.Kind() == apierrors.ErrRateLimited)
}

// budgetStopped is the cause of an error whose retry the budget refused,
// wrapping the transport's cause if any.
func budgetStopped(cause error) error {
	return markedError{cause, apierrors.ErrRetryBudgetExhausted, "not retried: the client's retry budget is exhausted"}
}

// markedError is a cause that also matches a sentinel of package errors,
// its text followed by note.
type markedError struct {
	cause, sentinel error
	note            string
}

func (e markedError) Error() string {
	switch {
	case e.cause == nil:
		return e.note
	case e.note == "":
		return e.cause.Error()
	}
	return e.cause.Error() + " (" + e.note + ")"
}

func (e markedError) Unwrap() error { return e.cause }

func (e markedError) Is(target error) bool { return target == e.sentinel }
