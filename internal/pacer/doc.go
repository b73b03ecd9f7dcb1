// Package pacer is the SDK's adaptive rate limiter: it learns the rate a
// provider admits from its answers and paces attempts just under it.
// internal/core keeps one per area of the platform, waits on it before
// every attempt of that area and reports each answer; it knows nothing of
// HTTP.
//
// It follows AWS SDK adaptive retry mode (unlimited until throttled, then
// cuts and CUBIC growth), changed to read the provider's rate rather than
// single answers, as TCP cuts once per loss event and BBR tolerates ~2%
// loss:
//
//   - Dormant, it counts admitted answers lock-free; an attempt costs two
//     atomic loads, so it can be on by default. A throttle engages it only
//     when throttles are more than 2% of the last second's answers (in the
//     first second of answers, of at least 20 of them, unless most were
//     throttled: 1 in 4 says little).
//   - The first rate is the one admitted over the last second (AWS's
//     measured rate is near zero early on), or over the time since the
//     answers began when that is less than a second, at least one attempt
//     per Retry-After; a slow start then doubles it every 150 ms (at most
//     once per answer until 4 answers say the rate used), to at most 4
//     times the rate of the last admitted answers (TCP's window
//     validation): clients throttled as it engaged wait out their
//     Retry-After, and a rate risen meanwhile would let them all through.
//   - It cuts only what a cut cures (judge.go). The cut that first slows
//     what the client sends (over the last second; in its first second of
//     answers, over the time since they began), and the engaging, start a
//     trial: a few hundred
//     answers (or 2 s) later, if the throttled share fell less than halfway
//     to what a throttle following the rate would leave, the cuts are undone
//     (the pacer dormant again, if it was) and that share becomes a
//     baseline, tolerated on top of the 2%: a hot key, a lock, one bad
//     replica or the arrival jitter at a strict limiter throttle whatever
//     the rate, and cut after cut would take it to almost nothing (TCP
//     Westwood and Veno tell random loss from congestion so). A share well
//     above the baseline cuts again, from the rate sent, as does one of
//     most answers (which forgets it); a trial that finds the share
//     followed forgets it too, and it lapses 10 s after throttles of its
//     share stop. While
//     a trial runs, the rate holds and the share must rise above twice the
//     share before to cut again; over 15% throttled, or under 15 answers/s,
//     a cut is not judged.
//   - One cut per event: a throttle of an attempt let through before the
//     last cut does not cut again.
//   - A cut is scaled to what was admitted: it takes away the share of
//     answers refused beyond 2%, over the last second and since the last
//     cut (half those before it counting too, at most 50), whichever is
//     less; at least 5%, at most 30% (CUBIC's β). Within the 2% it does not
//     cut at all.
//   - The cut that ends slow start flattens the curve where the rate was
//     throttled (it overshot by at most a doubling), or, when its last
//     step was a doubling of a rate under 4.6/s, halves the rate, a least
//     cut under the half, flat there (TCP Reno): the provider admitted the
//     half, and at a few requests/s the curve would climb back over its
//     rate within an answer or two; later ones at the
//     rate admitted lately (under 10 attempts/s, a least cut under it, as
//     a strict limiter refuses the jitter of a rate on its limit), and a
//     cut starts from at most 4 times that rate. Under 10 attempts/s a cut
//     also counts the answers before the last cut in full, up to 10, so
//     that one throttle is not a 30% cut; and when the rate was 1.25 times
//     the spacing of the last 4–8 admitted answers or more since the last
//     cut (the last second holds an answer or two), it is a least cut
//     under that spacing, and the curve flattens a least cut under halfway
//     from it to the rate throttled: a strict limiter admits every other
//     attempt of a rate up to twice its own, so the spacing says up to
//     half too little. The rate admitted lately is the last second's,
//     except in slow start and for a second after it, which that second
//     lags behind:
//     then the last 8 admitted answers' when they say more, and at a low
//     rate the curve flattens no lower than halfway to the rate
//     throttled. Either way it then probes above
//     it by a tenth in 2 s of sending (at least 10 answers to a second of
//     the curve, so that at 1 request/s a probe is not every few answers). Cuts while the provider admits nothing keep the
//     plateau, and it probes once a second (a cut after admitted answers
//     may go under that, to half of it). The first admitted answer after
//     1.5 s of nothing admitted (since the last one, or since it engaged:
//     a new client's first attempts throttled together at once are no
//     storm; or since slow start's cut, when it halved the rate: the next
//     slot is then a second away) and 3 throttles in a row or more releases
//     the pacer: the provider refused everything, as in a storm, and
//     admits again, as before. So does the first answer admitted to an
//     attempt paced since a cut, or the engaging, that found nothing
//     admitted for 1.5 s (a lone call's throttle engages it so, and its
//     retry admitted releases it). (A pacer just under a limit of 1 request/s
//     sees at most one throttle between admitted answers.)
//   - Slots are spaced by the interval: one taken late is not made up by a
//     shorter gap, which a provider with a burst of 1 would refuse. So
//     they must not be late: on Linux the head sleeps the last 2 ms before
//     its slot in the kernel, as a Go timer there wakes up to a
//     millisecond late (sleep_linux.go), and sleeps the average lateness
//     of that sleep less. A rising rate brings the next slot closer.
//   - A wait is refused only when its own slot, counting the queue ahead
//     at the rate of the moment, is past the deadline or the longest
//     wait; in slow start and in a storm, whose rates are about to rise,
//     only the head's slot counts. Attempts queue in order; only the head
//     sleeps, at most 250 ms at a time, and the rate of the moment times it.
//   - It releases by time, gradually: ReleaseAfter (3 s) after the last
//     throttle, once 20 answers were admitted since (at 1–2
//     requests/s, a probe every 10 was most of the 429s), the rate doubles every
//     250 ms; a throttle on the way up takes it back to where it started
//     (the curve goes on from there), and at 16 times both that and the
//     admitted rate it is dormant. An idle area (nothing admitted for 3 s
//     either) is dormant at once.
package pacer
