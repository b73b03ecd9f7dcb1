package observe

import "context"

// Nop is an Observer that does nothing. Embed it in an observer that
// handles only some events: the methods the observer does not define do
// nothing.
type Nop struct{}

var _ Observer = Nop{}

// StartCall returns ctx.
func (Nop) StartCall(ctx context.Context, _ Call) context.Context { return ctx }

// EndCall does nothing.
func (Nop) EndCall(context.Context, Call, error) {}

// StartAttempt returns ctx.
func (Nop) StartAttempt(ctx context.Context, _ Attempt) context.Context { return ctx }

// EndAttempt does nothing.
func (Nop) EndAttempt(context.Context, Attempt, AttemptResult) {}

// StartTokenFetch returns ctx.
func (Nop) StartTokenFetch(ctx context.Context) context.Context { return ctx }

// EndTokenFetch does nothing.
func (Nop) EndTokenFetch(context.Context, error) {}

// Retry does nothing.
func (Nop) Retry(context.Context, Retry) {}

// RateLimitWait does nothing.
func (Nop) RateLimitWait(context.Context, Wait) {}

// BudgetRefused does nothing.
func (Nop) BudgetRefused(context.Context, Refusal) {}
