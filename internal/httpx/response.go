package httpx

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfter reads the wait asked for in Retry-After-Ms or Retry-After
// (seconds, or an HTTP-date; a past one is 0), math.MaxInt64 when too long
// (RFC 9111 §1.2.2). ok is false when no usable header is present.
func RetryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
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
		return max(t.Sub(now), 0), true // Sub saturates rather than overflows
	}
	return 0, false
}

// parseMillis reads a non-negative, possibly fractional number of
// milliseconds, math.MaxInt64 when too large; NaN and Inf are refused.
func parseMillis(v string) (time.Duration, bool) {
	ms, err := strconv.ParseFloat(v, 64)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange) && math.IsInf(ms, 1):
		return math.MaxInt64, true
	case err != nil || math.IsInf(ms, 0) || !(ms >= 0):
		return 0, false
	}
	// float64(math.MaxInt64) rounds up to 2^63: anything below converts.
	if ns := ms * float64(time.Millisecond); ns < float64(math.MaxInt64) {
		return time.Duration(ns), true
	}
	return math.MaxInt64, true
}

// RequestID returns the first of requestIDHeaders present on a response.
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
