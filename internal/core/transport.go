package core

import (
	"errors"
	"net/http"
	"strings"
)

// attemptTransport is the SDK's own layer under the *http.Client of the
// attempts, below any redirect policy the user chose. For every HTTP request
// an attempt sends (a followed redirect is a request of its own) it
//
//   - removes the credentials from a request a redirect sends to another
//     origin than the base URL's, whatever CheckRedirect allowed;
//   - runs the call's middleware (option.WithMiddleware), client-wide first,
//     after the token and the signature are set.
//
// It also hides the user transport's CloseIdleConnections: go-retryablehttp
// calls it when it gives up, which would tear down a shared connection pool.
type attemptTransport struct{ next http.RoundTripper }

// credentialHeaders are the request headers the SDK puts a secret in: the
// bearer token or the SigV4 signature, and the AWS session token.
var credentialHeaders = []string{"Authorization", "X-Amz-Security-Token"}

func (t attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	state := stateOf(req.Context())
	if state == nil {
		return t.next.RoundTrip(req)
	}
	if req.Response != nil && !state.sameOrigin(req) {
		req = req.Clone(req.Context())
		for _, h := range credentialHeaders {
			req.Header.Del(h)
		}
	}
	var resp *http.Response
	var err error
	if len(state.s.Middleware) == 0 {
		resp, err = t.next.RoundTrip(req)
	} else {
		resp, err = runMiddleware(state.s.Middleware, req, t.next.RoundTrip)
	}
	if resp == nil && err == nil {
		// net/http would report this with the SDK's internal type name.
		return nil, errors.New("memberplatform: a middleware or transport returned neither a response nor an error")
	}
	if resp != nil && resp.Request == nil {
		// net/http's Transport sets it; mocks and hand-made responses
		// often do not. The pipeline reads what was sent from it: the
		// token a 401 rejected, the secrets to redact from the answer.
		resp.Request = req
	}
	return resp, err
}

// sameOrigin reports whether req goes to the base URL's scheme and host
// (with its port).
func (state *callState) sameOrigin(req *http.Request) bool {
	base := state.client.settings.BaseURL
	return strings.EqualFold(req.URL.Scheme, base.Scheme) && strings.EqualFold(req.URL.Host, base.Host)
}
