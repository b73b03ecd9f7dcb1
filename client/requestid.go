package client

import (
	"net/http"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// RequestID returns the server's correlation ID for resp, as
// (*errors.Error).RequestID reads it, or "" for a nil response or none.
// Use it on the response of option.WithResponseInto to log a successful
// call's ID the way an error reports a failed one's.
func RequestID(resp *http.Response) string {
	if resp == nil {
		return ""
	}
	return httpx.RequestID(resp.Header)
}
