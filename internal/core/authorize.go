package core

import (
	"context"
	"net/http"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// authorize sends req, with the client's bearer token when the operation
// needs one. A 401 means the token was rejected: exactly that token is
// dropped (a newer one is kept), a fresh one fetched, and the request sent
// once more. When the source hands back the very token that was rejected (a
// static token), resending cannot help: the 401 is returned.
func (c *Client) authorize(ctx context.Context, s *Settings, ac *attemptClient, call *Call, req *request) (outcome, error) {
	if !call.Op.Auth || c.tokens == nil {
		return ac.send(ctx, c, s, call, req, nil, 0)
	}
	prior := 0
	for resent := false; ; resent = true {
		tok, err := c.tokens.Get(ctx)
		if err != nil {
			return outcome{}, withOperation(err, call.Op.Name)
		}
		out, err := ac.send(ctx, c, s, call, req, tok, prior)
		if err != nil || out.resp.StatusCode != http.StatusUnauthorized || resent {
			return out, err
		}
		sent := tok.Header
		if out.resp.Request != nil {
			sent = out.resp.Request.Header.Get("Authorization")
		}
		if sent == "" {
			// The request the 401 answered carried no token: a redirect
			// took it to another origin, which got no credentials. A new
			// token cannot help, and resending would repeat the request.
			return out, nil
		}
		// Drop the token the SDK attached to the rejected attempt (a
		// newer one is kept), whatever a middleware did to the header's
		// bytes: it may rewrite them in place.
		rejected := out.tok
		if rejected == nil {
			rejected = tok
		}
		c.tokens.Invalidate(rejected)
		fresh, err := c.tokens.Get(ctx)
		if err != nil {
			return outcome{}, withOperation(err, call.Op.Name)
		}
		if fresh.Header == rejected.Header {
			return out, nil
		}
		prior = out.attempts
	}
}

// authorizeAttempt sets the bearer token and the signature on one attempt.
// refresh asks the cache again first: before a retry, the token may have
// been refreshed during the backoff.
func (state *callState) authorizeAttempt(req *http.Request, refresh bool) error {
	if state.tok != nil {
		if refresh {
			t, err := state.client.tokens.Get(req.Context())
			if err != nil {
				return err
			}
			state.tok = t
		}
		if refresh {
			// prepareRetry cloned the headers; the retry gets its own slice.
			req.Header["Authorization"] = []string{state.tok.Header}
		} else {
			req.Header["Authorization"] = state.own.own(ownedAuthorization, state.tok.Header)
		}
	}
	state.startAttempt(req) // observe.go: before signing, so propagation headers are signed
	if state.call.Sign != nil {
		if err := state.call.Sign(req, state.req.body); err != nil {
			return state.abandonAttempt(req, &apierrors.TokenError{Reason: "signing the request", Err: err}) // observe.go
		}
	}
	state.sent = req
	return nil
}

// withOperation names the call on a token error. The error may be shared by
// every caller that waited for the same fetch, so it is copied, not changed.
func withOperation(err error, op string) error {
	te, ok := err.(*apierrors.TokenError)
	if !ok || te.Operation != "" {
		return err
	}
	cp := *te
	cp.Operation = op
	return &cp
}
