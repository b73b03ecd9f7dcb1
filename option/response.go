package option

import (
	"errors"
	"net/http"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// WithResponseInto stores the call's final HTTP response in *dst, on
// success and on an API error (a non-2xx answer), so that its status,
// headers (such as the request ID of a successful call) and request can be
// read. The body has already been read and closed: the decoded result or
// error holds its content. The request's Authorization and
// X-Amz-Security-Token values read "[REDACTED]". *dst is nil when the call
// ended without a response (a validation, token or transport error).
//
// Scope: per call (client-wide it would be shared by concurrent calls).
// Default: none.
func WithResponseInto(dst **http.Response) RequestOption {
	if dst != nil {
		// Cleared here too, so that a call refused before it reaches the
		// pipeline (invalid parameters) leaves no stale response behind.
		*dst = nil
	}
	return requestOption{callOnly: "option.WithResponseInto applies to a single call, not to client.New", apply: func(s *core.Settings) error {
		if dst == nil {
			return errors.New("memberplatform: WithResponseInto: nil destination")
		}
		s.ResponseInto = dst
		return nil
	}}
}

// WithIdempotent marks a call as safe to repeat, so that it is retried after
// a timeout or a retriable status even though its method is not idempotent
// by HTTP semantics (a POST through client.Client.Execute, say). Use it
// only for requests the platform applies at most once, such as a POST with
// an idempotency key.
//
// Scope: per call (and client-wide, where every call is then retried).
// Default: the operation's own rule: the SDK's four operations are
// idempotent; client.Client.Execute retries GET, HEAD, OPTIONS, PUT, DELETE
// and TRACE.
func WithIdempotent() RequestOption {
	return anywhere(func(s *core.Settings) error {
		s.Idempotent = true
		return nil
	})
}
