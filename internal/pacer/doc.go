// Package pacer is the SDK's adaptive rate limiter: it learns the rate a
// provider admits from its answers and paces a client's attempts just under
// it. The pipeline (internal/core) waits on it before every attempt and
// tells it how each attempt was answered; it knows nothing of HTTP.
//
// It follows AWS SDK adaptive retry mode's limiter (unlimited until the
// first throttle, then a cut to 70% on each one and CUBIC growth on
// admitted answers, never above twice the admitted rate), changed to
// converge faster, sit closer to the limit and cost nothing until needed:
//
//   - Dormant, it counts admitted answers lock-free and lets attempts
//     through after two atomic loads, so it can be on by default.
//   - The first estimate is the rate admitted over the last second (AWS's
//     measured sending rate is near zero early on, so a client throttled
//     in its first second crawls), at least one attempt per Retry-After,
//     raised by the burst's late answers; a slow start then doubles it
//     every 150 ms of sending until the next throttle.
//   - A throttled answer to an attempt let through before the last cut
//     does not cut again (under AWS, a burst of refusals collapses it).
//   - The curve flattens at the rate the provider admitted, not the one it
//     refused, which overshoots by what its burst absorbed.
//   - Attempts queue in order, each slot timed at the rate of the moment;
//     a slot taken late is not lost to timer and hand-off latency.
//   - CUBIC's K is a fixed 2 s of sending, and the curve's clock advances
//     1/rate per admitted answer, so it stops while the client is idle.
//     At four times its plateau, the pacer lets go.
package pacer
