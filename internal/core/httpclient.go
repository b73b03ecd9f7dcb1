package core

import (
	"net/http"
)

// buildHTTPClient makes the *http.Client the attempts use: the user's
// transport (or a pooled default) under the SDK's own attemptTransport
// (transport.go). prev, when
// set, is the client's own http.Client, whose transport a per-call client
// reuses when the call did not choose another.
func buildHTTPClient(s *Settings, prev *http.Client) *http.Client {
	rt := s.Transport
	hc := &http.Client{}
	if s.HTTPClient != nil {
		hc.Jar = s.HTTPClient.Jar
		hc.CheckRedirect = s.HTTPClient.CheckRedirect
		hc.Timeout = s.HTTPClient.Timeout
		if rt == nil {
			rt = s.HTTPClient.Transport
		}
	}
	if rt == nil {
		rt = s.DefaultTransport
	}
	if rt == nil && prev != nil {
		if t, ok := prev.Transport.(attemptTransport); ok {
			rt = t.next
		}
	}
	if rt == nil {
		rt = NewPooledTransport()
	}
	if s.AttemptTimeout > 0 {
		hc.Timeout = s.AttemptTimeout
	}
	if hc.CheckRedirect == nil {
		hc.CheckRedirect = sameOriginRedirect
	}
	hc.Transport = attemptTransport{rt}
	return hc
}

// sameOriginRedirect, the default redirect policy, follows up to 5
// redirects that stay on the original scheme and host. A redirect elsewhere
// is not followed: its 3xx response is returned (and becomes an
// *errors.Error), so a request body carrying personal data is never replayed
// to another host. A user's own policy (option.WithHTTPClient) may follow
// more; attemptTransport still keeps the credentials from leaving the
// origin.
func sameOriginRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 || req.URL.Scheme != via[0].URL.Scheme || req.URL.Host != via[0].URL.Host {
		return http.ErrUseLastResponse
	}
	return nil
}
