package core

import (
	"context"
	"slices"
	"sync"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// fetchResult is one return of a TokenFetcher.
type fetchResult struct {
	value  string
	expiry time.Time
	err    error
}

// boundedFetch runs the fetch on a goroutine of its own, between the
// observer's StartTokenFetch and EndTokenFetch, and abandons it when ctx
// (bounded by timeout) ends: a source that ignores its context (a read on
// a dead connection) would otherwise hold the shared fetch forever, and
// every later call would join it. The abandoned fetch's result, if it
// ever comes, is dropped; its goroutine lives only as long as the source's
// own code.
func (c *TokenCache) boundedFetch(ctx context.Context, timeout time.Duration) (v string, exp time.Time, err error) {
	bound := ctx // the fetch's bound, whatever context the observer returns (it may drop the deadline)
	if obs := c.observer; obs != nil {
		ctx = orParent(obs.StartTokenFetch(ctx), ctx)
		defer func() { obs.EndTokenFetch(ctx, err) }()
	}
	done := make(chan fetchResult, 1) // buffered: an abandoned fetch never blocks
	go func() {
		v, exp, err := c.fetch(ctx)
		done <- fetchResult{v, exp, err}
	}()
	select {
	case r := <-done:
		return r.value, r.expiry, r.err
	case <-bound.Done():
	}
	select {
	case r := <-done: // returned as its context ended: its own answer
		return r.value, r.expiry, r.err
	default:
	}
	return "", time.Time{}, &apierrors.TokenError{
		Reason: "the token source did not return within " + timeout.String() + "; the fetch is abandoned and the next call starts a new one",
		Err:    bound.Err()}
}

// tokenWaits holds the error answer the fetch in flight is waiting out
// before its next attempt (a token endpoint's 429 or 503 with
// Retry-After), for callers whose deadline comes first. Each fetch has a
// generation, so a late notice of an abandoned fetch is ignored.
type tokenWaits struct {
	mu      sync.Mutex
	gen     uint64
	answer  *apierrors.Error
	until   time.Time     // when the next attempt goes out
	changed chan struct{} // closed when answer or gen changes; nil until watched
}

// watch returns the answer being waited out (nil for none), until when,
// and a channel closed at the next change.
func (w *tokenWaits) watch() (*apierrors.Error, time.Time, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.changed == nil {
		w.changed = make(chan struct{})
	}
	return w.answer, w.until, w.changed
}

// setLocked replaces the answer and wakes the watchers.
func (w *tokenWaits) setLocked(answer *apierrors.Error, until time.Time) {
	w.answer, w.until = answer, until
	if w.changed != nil {
		close(w.changed)
		w.changed = nil
	}
}

// begin starts a fetch's generation.
func (w *tokenWaits) begin() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gen++
	w.setLocked(nil, time.Time{})
	return w.gen
}

// end closes generation gen, if it is still the current one: its answer
// is cleared, and a later post of it (a source that returned while a
// retry of its own went on) is dropped, as no fetch waits it out.
func (w *tokenWaits) end(gen uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gen != gen {
		return
	}
	w.gen++
	if w.answer != nil {
		w.setLocked(nil, time.Time{})
	}
}

// post records that generation gen's fetch waits wait after answer.
func (w *tokenWaits) post(gen uint64, answer *apierrors.Error, wait time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gen == gen {
		w.setLocked(answer, time.Now().Add(wait))
	}
}

// tokenWaitKey keys a fetch's tokenWaitPost in its context.
type tokenWaitKey struct{}

// tokenWaitPost is where a token fetch's retries post their waits.
type tokenWaitPost struct {
	waits *tokenWaits
	gen   uint64
}

// noteTokenWait tells the callers of the token fetch that ctx belongs to,
// if any, that it waits wait after answer (checkRetry): a copy, as the
// call goes on changing its own.
func noteTokenWait(ctx context.Context, answer *apierrors.Error, wait time.Duration) {
	p, ok := ctx.Value(tokenWaitKey{}).(tokenWaitPost)
	if !ok || answer == nil {
		return
	}
	p.waits.post(p.gen, cloneAnswer(answer), wait)
}

// cloneAnswer copies answer deep enough that what apierrors.Error.Redact
// changes in the copy (its header, body and decoded fields) leaves answer
// as it was: the callers of one fetch each get their own.
func cloneAnswer(answer *apierrors.Error) *apierrors.Error {
	cp := *answer
	cp.Header = answer.Header.Clone()
	cp.Body = slices.Clone(answer.Body)
	if answer.Problem != nil {
		p := *answer.Problem
		p.ServiceErrors = slices.Clone(p.ServiceErrors)
		cp.Problem = &p
	}
	if answer.CodeMessage != nil {
		m := *answer.CodeMessage
		m.Errors = slices.Clone(m.Errors)
		cp.CodeMessage = &m
	}
	return &cp
}
