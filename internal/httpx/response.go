package httpx

// What a response's headers say: how long to wait before retrying
// (RetryAfter) and the request ID to quote to the provider (RequestID).

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfter reads how long the server asked the client to wait before
// retrying. It understands Retry-After-Ms (milliseconds, as OpenAI and Azure
// send) and Retry-After as delta-seconds or an HTTP-date (RFC 9110 §10.2.3),
// relative to now. A date in the past yields 0. A wait too long for a
// time.Duration yields math.MaxInt64 (as RFC 9111 §1.2.2 has caches treat an
// unrepresentable delta-seconds as the greatest value they can hold), so a
// caller comparing it with a cap sees "longer than any cap", never an
// overflowed, negative wait. ok is false when no usable header is present.
func RetryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if d, ok := parseMillis(v); ok {
			return d, true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		// On overflow ParseInt returns the extreme of the sign given.
		switch {
		case secs < 0:
			return 0, false
		case secs > math.MaxInt64/int64(time.Second):
			return math.MaxInt64, true
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d, true // Sub saturates rather than overflows
		}
		return 0, true
	}
	return 0, false
}

// parseMillis reads a non-negative, possibly fractional number of
// milliseconds. A number too large for a time.Duration (including one too
// large for a float64) gives math.MaxInt64; "NaN", "Inf" and negative
// values are refused.
func parseMillis(v string) (time.Duration, bool) {
	ms, err := strconv.ParseFloat(v, 64)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange) && math.IsInf(ms, 1):
		return math.MaxInt64, true
	case err != nil || math.IsInf(ms, 0) || !(ms >= 0):
		return 0, false
	}
	// float64(math.MaxInt64) rounds up to 2^63: every value below it
	// converts without overflow.
	if ns := ms * float64(time.Millisecond); ns < float64(math.MaxInt64) {
		return time.Duration(ns), true
	}
	return math.MaxInt64, true
}

// RequestID returns the first request-correlation header present on a
// response, in this order: X-Request-Id, X-Amzn-RequestId, X-Amz-Request-Id,
// X-Correlation-Id, Request-Id, X-Amzn-Trace-Id, Traceparent.
func RequestID(h http.Header) string {
	for _, k := range requestIDHeaders {
		if v := h.Get(k); v != "" {
			return v
		}
	}
	return ""
}

var requestIDHeaders = []string{
	"X-Request-Id", "X-Amzn-Requestid", "X-Amz-Request-Id", "X-Correlation-Id",
	"Request-Id", "X-Amzn-Trace-Id", "Traceparent",
}
