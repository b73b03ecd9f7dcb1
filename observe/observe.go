package observe

import (
	"context"
	"net/http"
	"time"

	memberplatform "github.com/memberplatform/memberplatform-go"
)

// Observer receives a client's events. See the package documentation for
// the order of the calls and what each context is.
type Observer interface {
	// StartCall is called when a call of an operation starts, before
	// anything is sent, and returns the call's context, derived from ctx.
	// (Every Start method must return its ctx or a context derived from
	// it; the pipeline ignores a nil one, and an attempt context that is
	// not derived from the one given.)
	StartCall(ctx context.Context, call Call) context.Context
	// EndCall is called when the call returns, with the error it returns
	// (nil on success).
	EndCall(ctx context.Context, call Call, err error)

	// StartAttempt is called before an HTTP attempt is signed and sent,
	// and returns the attempt's context, which becomes the request's: a
	// transport or middleware under the SDK sees it. It may add
	// propagation headers (traceparent...) to attempt.Request.Header:
	// they are set before the SigV4 signature, which covers them. It must
	// change nothing else of the request.
	StartAttempt(ctx context.Context, attempt Attempt) context.Context
	// EndAttempt is called when the attempt's response has been read, or
	// when it failed without one.
	EndAttempt(ctx context.Context, attempt Attempt, result AttemptResult)

	// StartTokenFetch is called when the client's token cache asks its
	// token source for a fresh token (once for all the callers that wait
	// for it), and returns the fetch's context. ctx is the context of the
	// call that triggered the fetch.
	StartTokenFetch(ctx context.Context) context.Context
	// EndTokenFetch is called when the fetch returns, with its error: nil,
	// or an *errors.TokenError (whatever the token source returned).
	EndTokenFetch(ctx context.Context, err error)

	// Retry is called when the policy decided to retry an attempt, before
	// the client waits retry.Delay.
	Retry(ctx context.Context, retry Retry)
	// RateLimitWait is called after the client waited its turn to send an
	// attempt, on its area's adaptive pacer, the limiter of
	// option.WithRateLimiter, or the next admission of a resource that the
	// provider throttles on its own (a hot user). It is not called while
	// none is in play (no limiter for the area, its pacer dormant, and the
	// attempt not held).
	RateLimitWait(ctx context.Context, wait Wait)
	// BudgetRefused is called when the policy would have retried an
	// attempt but the client's retry budget was too low: the call ends
	// with the attempt's error.
	BudgetRefused(ctx context.Context, refusal Refusal)
}

// Call describes one call of an operation.
type Call struct {
	// Operation is the operation's name: "accessmgmt.UpdateUser",
	// "client.Execute", "auth.Token" (the SigV4 token call).
	Operation string
	// Method is the HTTP method.
	Method string
	// URLTemplate is the operation's path template, such as
	// "/auth/access-management/users/{userId}", without the base URL's
	// path prefix. It is empty when the SDK does not know a template:
	// client.Execute's path is the caller's own and may hold IDs.
	URLTemplate string
	// Token says the call fetches the client's bearer token: it runs
	// inside StartTokenFetch and EndTokenFetch.
	Token bool
	// Area is the backend the call reaches, whose load control (pacer,
	// retry budget, rate limiter) it shares: a bounded value, fit for a
	// metric attribute.
	Area memberplatform.Area
}

// Attempt describes one HTTP attempt of a call.
type Attempt struct {
	Call Call
	// Request is the request the attempt sends (see
	// Observer.StartAttempt); it is set for StartAttempt only, nil for
	// EndAttempt. Its URL holds path IDs and query values and its headers
	// the credentials: never record them.
	Request *http.Request
	// Resend counts the attempts of the call before this one: 0 for the
	// first, 1 for the first retry (or the resend after a 401), and so on.
	Resend int
}

// AttemptResult is how an attempt ended.
type AttemptResult struct {
	// StatusCode is the response's status, 0 when none arrived.
	StatusCode int
	// Err is nil for a 2xx; the decoded *errors.Error for an error
	// status; otherwise the failure that left the attempt without a usable
	// response (a timeout, a reset connection, a body cut short). Its text
	// may quote the URL: classify it (ErrorType), do not record it.
	Err error
}

// Retry is a decision to retry an attempt.
type Retry struct {
	// Attempt is the number of the attempt that will be retried (1 for
	// the first attempt of the call).
	Attempt int
	// Reason is the ErrorType of the attempt's outcome: "rate_limited",
	// "service_unavailable", "timeout", "transport"...
	Reason string
	// Delay is how long the client waits before the retry: the backoff,
	// or the server's Retry-After.
	Delay time.Duration
}

// Wait is a wait for a rate limit before an attempt: the area's adaptive
// pacer, the limiter of option.WithRateLimiter, or the next admission of a
// resource (a user) that the provider throttles on its own.
type Wait struct {
	// Duration is the time the attempt waited for its turn.
	Duration time.Duration
	// Area is the area whose pacer, limiter or resource the attempt waited on.
	Area memberplatform.Area
}

// Refusal is a retry the client's retry budget refused.
type Refusal struct {
	// Attempt is the number of the attempt that was not retried.
	Attempt int
	// Reason is the ErrorType of the attempt's outcome.
	Reason string
	// Area is the area whose retry budget refused the retry.
	Area memberplatform.Area
}

// State reads a client's load-control state, for gauges. The SDK builds
// one per client and hands it to a StateObserver. A client keeps its load
// control per area (memberplatform.Area). The functions are safe for
// concurrent use and cheap, and never block.
type State struct {
	// RetryBudget returns the tokens left in access management's retry
	// budget (the access provider's, the one rate limit the contract
	// names), as RetryBudgetOf(memberplatform.AreaAccessMgmt) does.
	RetryBudget func() (tokens int, ok bool)
	// PacerRate returns the rate of access management's adaptive pacer,
	// as PacerRateOf(memberplatform.AreaAccessMgmt) does.
	PacerRate func() (perSecond float64, ok bool)

	// Areas lists the areas the functions below know, in a fixed order.
	Areas []memberplatform.Area
	// RetryBudgetOf returns the tokens left in the area's retry budget; ok
	// is false when it has none (option.WithRetryBudget with Disabled) or
	// the area is unknown.
	RetryBudgetOf func(area memberplatform.Area) (tokens int, ok bool)
	// PacerRateOf returns the rate, in requests per second, at which the
	// area's adaptive pacer lets attempts out: 0 while it is dormant
	// (until the first throttle, and again 3 s after the last). ok is
	// false when the client has no pacer.
	PacerRateOf func(area memberplatform.Area) (perSecond float64, ok bool)
	// ShedRatioOf returns the share, from 0 to 1, of the area's attempts
	// that admission control refused locally over the last 2 s (the
	// window it judges by), because nearly all of their operation's, or
	// the area's, recent answers were failures (5xx, or no answer): 0
	// while the area is healthy or quiet, and again as soon as an
	// answered probe reopens it. An operation shed on its own beside
	// healthy ones counts here too; Shed events tell them apart. ok is false when the client has no
	// admission control (option.WithoutAdmissionControl) or the area is
	// unknown.
	ShedRatioOf func(area memberplatform.Area) (ratio float64, ok bool)
	// ThrottledResourcesOf returns how many resources of the area (an
	// operation and its path parameters: one user, one object) the
	// provider throttled on their own lately (each counts until 10 s after
	// its last throttle), while the rest of the area was admitted: their throttles do not slow the area's pacer, their
	// retries are spaced on their own and, while many queue, their new
	// calls are refused at once with errors.ErrRateLimited. 0 while no
	// throttle is concentrated on a minority of the area's calls. ok is
	// false when the client has no adaptive rate limit
	// (option.WithoutAdaptiveRateLimit) or the area is unknown. A State
	// built by hand may leave it nil.
	ThrottledResourcesOf func(area memberplatform.Area) (n int, ok bool)
	// UnfollowedShareOf returns the share, from 0 to 1, of the area's
	// answers that its adaptive pacer found throttled whatever rate it
	// sends (a hot key, a lock, one bad replica behind a balancer, arrival
	// jitter at a strict limiter): a cut did not lower it, so the pacer
	// undid the cut and tolerates throttles up to about that share; those
	// calls are retried on their own backoff and Retry-After. 0 while it
	// found none (throttles over 2% of answers slow it down), and again
	// 10 s after throttles of that share stop or once throttles cover most
	// answers. ok is false when the client has no pacer or the area is
	// unknown.
	UnfollowedShareOf func(area memberplatform.Area) (share float64, ok bool)
}

// StateObserver is an Observer that also reads the client's State: client.New
// calls ObserveState once it has built the client. The client keeps state
// alive as long as it lives itself; an observer that registers a callback
// reading it for the life of the process should hold it through a weak
// pointer (package weak), so that a client that is no longer used can be
// collected.
type StateObserver interface {
	Observer
	ObserveState(state *State)
}

// Shed is an attempt that the client's admission control refused locally,
// without sending it, because nearly all of its operation's recent answers
// (or, when the area is down, its area's) were failures. The call then
// fails with an error that matches what the operation's last failure
// matched (its 5xx's kind, such as errors.ErrServiceUnavailable or
// errors.ErrInternal, or errors.ErrTransport) and errors.ErrLoadShed.
type Shed struct {
	// Area is the area whose admission control refused the attempt.
	Area memberplatform.Area
	// Reason is the ErrorType of the operation's last failure:
	// ErrorTransport (no answer), ErrorTimeout (no answer within the
	// attempt timeout), or its 5xx's (ErrorServiceUnavailable,
	// ErrorInternal, "5xx"), which the call's error matches too.
	Reason string
	// Operation is the name of the operation whose attempt was refused,
	// as in Call.Operation: "accessmgmt.ReplaceRolePermissions", or
	// "client.Execute" (whose calls are judged by method and path shape;
	// see option.WithoutAdmissionControl).
	Operation string
	// Scope says what was judged to be failing: ShedOperation when the
	// operation was shed on its own while other operations of its area
	// were served, ShedArea when the whole area is down (no operation of
	// it served for a quarter of a second). A bounded value, fit for a
	// metric attribute.
	Scope string
}

// The values of Shed.Scope.
const (
	// ShedOperation: the operation's own recent answers were nearly all
	// failures; other operations of its area are still sent and served.
	ShedOperation = "operation"
	// ShedArea: every operation of the area is failing (the backend is
	// down); the area's attempts are shed together.
	ShedArea = "area"
)

// ShedObserver is an Observer that is also told of every attempt admission
// control refused locally (Shed). The SDK calls Shed on the call's
// goroutine, in place of StartAttempt and EndAttempt: a shed attempt is
// never sent.
type ShedObserver interface {
	Observer
	Shed(ctx context.Context, shed Shed)
}

// Combiner is an Observer built from several options, such as the
// OpenTelemetry adapter's WithTracerProvider and WithMeterProvider, which
// configure one instrumentation together. option.WithObserver never keeps a
// Combiner itself: it calls Combine with each observer the options before
// it set (nil when there is none) until one merges. Combine returns the
// observer that stands for both, and merged true, when it can merge with
// prev; otherwise the observer that stands for the Combiner alone, and
// merged false, which is then called after the others.
type Combiner interface {
	Observer
	Combine(prev Observer) (o Observer, merged bool)
}
