package httpx

import "net/http"

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
