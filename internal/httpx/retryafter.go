// Package httpx holds small HTTP helpers shared by the SDK's packages.
package httpx

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfter reads how long the server asked the client to wait before
// retrying. It understands Retry-After-Ms (milliseconds, as OpenAI and Azure
// send) and Retry-After as delta-seconds or an HTTP-date (RFC 9110 §10.2.3),
// relative to now. A date in the past yields 0. ok is false when no usable
// header is present.
func RetryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < float64(1<<53) {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(1<<62/time.Second) {
			secs = int64(1 << 62 / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d, true
		}
		return 0, true
	}
	return 0, false
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

// IsLoopbackHost reports whether host (without port) names the local machine:
// "localhost", a *.localhost name, or a loopback IP address.
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	host = strings.TrimPrefix(strings.TrimSuffix(host, "]"), "[")
	if ip := parseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	return false
}
