package core

import (
	"net/http"
	"sync/atomic"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// The retry budget keeps retries from multiplying the load on a failing
// service: the client's calls share one pool of tokens, a retry spends
// some, a healthy answer puts some back, and an empty pool stops retries
// (not first attempts). What the numbers mean for users, and the AWS quota
// they follow, is option.WithRetryBudget's documentation.

// BudgetConfig sizes a retry budget, in tokens.
type BudgetConfig struct {
	Capacity int // the budget when full, and where it starts
	// What a retry costs after: a rate-limited answer (429, or the
	// contract's rate-limited problem) without the adaptive limiter, and
	// while it paces the client (the limiter, Retry-After and MaxRetries
	// bound those); another retriable error response (the service is
	// failing); a connection failure or timeout (it is overloaded or
	// unreachable, and the attempt held a connection until it failed).
	ThrottleCost, PacedThrottleCost, ErrorCost, TimeoutCost int
	// SuccessRefill is what a call answered healthily at its first attempt
	// puts back; a retry answered healthily gets its own cost back.
	SuccessRefill int
}

// DefaultBudgetConfig returns the defaults: capacity 500; a retry costs 5
// after a throttle (nothing while paced), 10 after another error, 15 after
// a timeout; a healthy first answer puts 1 back. With no healthy answer in
// between, a client can thus retry 50 failing calls (33 timeouts) in all
// before it stops, so 4,000 failing calls cost about 4,050 attempts
// instead of 16,000.
func DefaultBudgetConfig() BudgetConfig {
	return BudgetConfig{Capacity: 500, ThrottleCost: 5, PacedThrottleCost: 0, ErrorCost: 10, TimeoutCost: 15, SuccessRefill: 1}
}

// RetryBudget is a client's retry budget. It is safe for concurrent use;
// the pipeline shares one among every call of a client.Client, and the
// token call of its SigV4 source.
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

// take spends cost tokens when the budget holds that many, and reports
// whether it did.
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
// never written, so a healthy client's calls do not contend on it.
func (b *RetryBudget) give(n int) {
	for {
		t := b.tokens.Load()
		if t >= int64(b.cfg.Capacity) || n <= 0 {
			return
		}
		full := int64(b.cfg.Capacity)
		next := full // also when t+n would overflow: a capacity of math.MaxInt means "no limit"
		if int64(n) < full-t {
			next = t + int64(n)
		}
		if b.tokens.CompareAndSwap(t, next) {
			return
		}
	}
}

// loadState is what the retry budget and the adaptive rate limiter keep
// about one send, inside its callState.
type loadState struct {
	retryCost int // what the last retry took from the budget, given back if it gets a healthy answer
	// retryPending says a retry was paid for and has not gone out yet.
	retryPending bool
	epoch        uint64 // the adaptive limiter's epoch when the current attempt was let through (pacer.Wait)
}

// spendRetry asks the budget for the retry the policy chose after an
// attempt that ended with apiErr (an error response) or err (no usable
// response). It reports whether the retry may go ahead. When it may not, a
// final error response is marked as stopped by the budget (a transport
// failure is marked by failure, which builds its error).
func (state *callState) spendRetry(apiErr *apierrors.Error, err error) bool {
	b := state.s.RetryBudget
	if b == nil {
		return true
	}
	var cost int
	switch {
	case err != nil:
		cost = b.cfg.TimeoutCost
	case rateLimited(apiErr) && state.s.Adaptive != nil:
		cost = b.cfg.PacedThrottleCost
	case rateLimited(apiErr):
		cost = b.cfg.ThrottleCost
	default:
		cost = b.cfg.ErrorCost
	}
	if !b.take(cost) {
		if apiErr != nil {
			apiErr.Err = budgetStopped{}
		}
		return false
	}
	state.retryCost, state.retryPending = cost, true
	return true
}

// retrySent notes that the retry the budget paid for went out: from now
// on it is settled by its answer, not refunded.
func (state *callState) retrySent() { state.retryPending = false }

// refundRetry gives back what a retry took when it is not sent after all
// (the context ended during its backoff, the limiter refused it, signing
// failed): only retries that reach the service may drain the budget.
func (state *callState) refundRetry() {
	if b := state.s.RetryBudget; b != nil && state.retryPending {
		b.give(state.retryCost)
		state.retryPending, state.retryCost = false, 0
	}
}

// settleBudget runs when a send got its final answer, with apiErr the
// decoded error response (nil for a 2xx). An answer a healthy service gives
// (anything but 408, 429 and 5xx) refills the budget: by the cost of the
// retry that got it, or by SuccessRefill when no retry was needed.
func (state *callState) settleBudget(apiErr *apierrors.Error) {
	b := state.s.RetryBudget
	if b == nil || !healthyAnswer(apiErr) {
		return
	}
	if state.retryCost > 0 {
		b.give(state.retryCost)
		return
	}
	b.give(b.cfg.SuccessRefill)
}

// rateLimited reports whether an error response says the client is sending
// too fast: a 429, or the contract's "rate limited" problem at any status.
// It asks Kind, which reads the classification Decode kept, rather than
// Is(ErrRateLimited), which for a status of another kind (a 422, say) goes
// on to normalize the body's names and costs every error answer a few
// allocations; the two differ only for a body that names two kinds at once.
func rateLimited(apiErr *apierrors.Error) bool {
	return apiErr != nil && (apiErr.StatusCode == http.StatusTooManyRequests || apiErr.Kind() == apierrors.ErrRateLimited)
}

// healthyAnswer reports whether a final answer shows the service working:
// a 2xx (apiErr nil), 3xx or a 4xx that is not Temporary (408, 429).
func healthyAnswer(apiErr *apierrors.Error) bool {
	return apiErr == nil || (apiErr.StatusCode < http.StatusInternalServerError && !apiErr.Temporary())
}

// budgetCause marks err, the cause of a send that ended without a response,
// as stopped by the budget when it was.
func (state *callState) budgetCause(err error) error {
	if state.stop != StopBudget {
		return err
	}
	return budgetStopped{cause: err}
}

// budgetStopped is the cause recorded on an error whose retry the budget
// refused: the *errors.Error's Err, or the *errors.TransportError's Err
// wrapping the transport's own cause. It matches
// errors.ErrRetryBudgetExhausted.
type budgetStopped struct{ cause error }

func (e budgetStopped) Error() string {
	const msg = "not retried: the client's retry budget is exhausted"
	if e.cause == nil {
		return msg
	}
	return e.cause.Error() + " (" + msg + ")"
}

// Unwrap returns the transport's cause, nil for an error response.
func (e budgetStopped) Unwrap() error { return e.cause }

// Is matches errors.ErrRetryBudgetExhausted.
func (e budgetStopped) Is(target error) bool { return target == apierrors.ErrRetryBudgetExhausted }
