// Package pacer is the SDK's adaptive rate limiter: it learns the rate a
// provider admits from its answers and paces attempts just under it.
// internal/core keeps one per area of the platform, waits on it before
// every attempt of that area and reports each answer; it knows nothing of
// HTTP.
//
// It follows AWS SDK adaptive retry mode (unlimited until the first
// throttle, then a cut to 70% per throttle and CUBIC growth), changed to be
// exactly as strict as the provider's answers:
//
//   - Dormant, it counts admitted answers lock-free; an attempt costs two
//     atomic loads, so it can be on by default.
//   - The first rate is the one admitted over the last second (AWS's
//     measured rate is near zero early on), at least one attempt per
//     Retry-After; a slow start then doubles it every 150 ms.
//   - A throttle of an attempt let through before the last cut does not
//     cut again, so a burst of refusals does not collapse the rate.
//   - The curve flattens at the rate admitted, not the one refused; cuts
//     while the provider admits nothing keep it, so the curve climbs back
//     to where it was. A throttle that finds nothing admitted for a second
//     (a storm of refusals, or a lone call) makes the first admitted answer
//     to an attempt let through after it release the pacer: the provider
//     admits again, as before. (An answer to an attempt sent before it
//     shows that the provider was admitting: no storm.) Until then it
//     probes once a second.
//   - A wait is refused only when its own slot, counting the queue ahead
//     at the rate of the moment, is past the deadline or the longest
//     wait; in slow start and in a storm, whose rates are about to rise,
//     only the head's slot counts.
//   - Attempts queue in order; a slot taken late is not lost.
//   - CUBIC's K is a fixed 2 s of sending, and its clock advances 1/rate
//     per admitted answer (it stops while idle).
//   - It releases by time: ReleaseAfter (3 s) after the last throttle it
//     is dormant again, whether or not attempts flowed, and refuses nothing.
package pacer
