package client

import (
	"net/http"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// RequestID returns the server's correlation ID for resp, read from the
// same headers, in the same order, as (*errors.Error).RequestID:
// X-Request-Id, X-Amzn-RequestId (API Gateway), X-Amz-Request-Id,
// X-Correlation-Id, Request-Id, X-Amzn-Trace-Id, traceparent. It returns ""
// for a nil response or one without any of them.
//
// Use it on the response option.WithResponseInto hands back, to log a
// successful call's ID the way an error reports a failed one's.
func RequestID(resp *http.Response) string {
	if resp == nil {
		return ""
	}
	return httpx.RequestID(resp.Header)
}
