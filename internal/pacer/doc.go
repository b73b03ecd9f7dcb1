// Package pacer is the SDK's adaptive rate limiter: it learns the rate a
// provider admits from its answers and paces a client's attempts just under
// it. The pipeline (internal/core) waits on it before every attempt and
// tells it how each attempt was answered; it knows nothing of HTTP.
//
// It follows AWS SDK adaptive retry mode's client-side limiter (unlimited
// until the first rate-limited answer, then a cut to 70% on each one and
// CUBIC growth on admitted answers, never above twice the admitted rate),
// with six changes that converge faster, sit closer to the provider's limit
// and cost nothing while the provider does not throttle:
//
//   - Dormant until the first throttle, it counts admitted answers lock-free
//     (see meter) and lets every attempt through after two atomic loads: no
//     lock and no allocation, so it can be on by default.
//   - The first estimate is the rate the provider admitted over the last
//     second, never less than one attempt per Retry-After (a lone call's
//     retry leaves when its Retry-After ends), raised by late answers of the
//     same burst; a slow start then doubles it every 150 ms of sending until
//     the next throttle. (AWS starts from its measured sending rate, near
//     zero early on, so a client throttled in its first second crawls.)
//   - One congestion event cuts once: a throttled answer to an attempt let
//     through before the last cut does not cut again (AWS's rate collapses
//     under a burst of refusals).
//   - The curve flattens where the provider admitted, not where it refused
//     (that rate overshoots by what the provider's burst absorbed).
//   - Attempts queue in order and each slot is timed when it comes, at the
//     rate of the moment; a slot taken late is not lost, so timer and
//     hand-off latency do not shave the rate.
//   - CUBIC's K is a fixed 2 s of sending, and the curve's clock advances
//     1/rate per admitted answer, so it stops while the client is idle. Once
//     the curve reaches four times its plateau, the pacer lets go.
package pacer
