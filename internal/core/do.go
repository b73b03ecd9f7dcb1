package core

import (
	"context"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// Do runs call through the pipeline with the client's settings and opts
// (option.RequestOption values) applied. The stages, in order:
//
//  1. settings  (settings.go): the client's settings, or a copy with opts
//     applied; options that only client.New may set are refused.
//  2. request   (request.go): the URL with escaped path parameters and the
//     query; the JSON body, encoded once.
//  3. authorize (authorize.go): the bearer token from the cache; a 401 drops
//     it and resends once with a fresh one.
//  4. attempts  (attempts.go, retry.go, body.go, budget.go, ratelimit.go):
//     send on go-retryablehttp, each attempt after its turn on the rate
//     limiters; read each body inside its attempt; decode an error body
//     once; retry what the policy allows and the retry budget pays for,
//     waiting the backoff or Retry-After, never past the deadline; re-sign
//     each attempt.
//  5. result    (decode.go): the decoded 2xx body, or the decoded
//     *errors.Error; the final response for option.WithResponseInto.
//
// Every failure is a typed error from package errors.
func Do[O any](ctx context.Context, c *Client, call *Call, opts []O) error {
	if c == nil {
		return invalidCall(call, "client", "is not configured: use the services of a client built by client.New")
	}
	if ctx == nil {
		return invalidCall(call, "ctx", "must not be nil (use context.Background())")
	}
	if c.settings.Observer != nil {
		return observeCall(ctx, c, call, opts) // observe.go: doCall between the observer's StartCall and EndCall
	}
	return doCall(ctx, c, call, opts)
}

// doCall is Do once the client and the context are known to be there.
func doCall[O any](ctx context.Context, c *Client, call *Call, opts []O) error {
	s, ac, err := callSettings(c, call, opts)
	if err != nil {
		return err
	}
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	req, err := newRequest(s, call)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		// Already over: no token fetch, no attempt. The same error as a
		// call cancelled during its attempts.
		return &apierrors.TransportError{Operation: call.Op.Name, Method: call.Op.Method, Path: req.path, Err: err}
	}
	if s.ResponseInto != nil {
		*s.ResponseInto = nil
	}
	out, err := c.authorize(ctx, s, ac, call, &req)
	if err != nil {
		return err
	}
	if s.ResponseInto != nil {
		*s.ResponseInto = responseForCaller(out.resp)
	}
	if call.Status != nil {
		*call.Status = out.resp.StatusCode
	}
	if out.apiErr != nil {
		return out.apiErr
	}
	return decodeResult(&out, call, &req)
}

// invalidCall is the error for a call refused before anything was sent.
func invalidCall(call *Call, field, msg string) error {
	return &apierrors.ValidationError{Operation: call.Op.Name, Fields: []apierrors.FieldError{{Field: field, Message: msg}}}
}
