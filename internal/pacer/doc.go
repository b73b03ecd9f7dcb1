// Package pacer is the SDK's adaptive rate limiter: it learns the rate a
// provider admits from its answers and paces a client's attempts just under
// it. The pipeline (internal/core) waits on it before every attempt and
// tells it how each attempt was answered; it knows nothing of HTTP.
//
// It is dormant until the first rate-limited answer: a dormant pacer costs
// a healthy answer a clock read and an atomic add on a per-second counter
// (after atomic loads), and an attempt two atomic loads; no lock and no
// allocation, so it can be on by default.
package pacer
