package core

import (
	"bytes"
	"net/http"
	"slices"
	"strings"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// minSecretLen is the shortest value treated as a secret: no issuer hands
// out shorter tokens or signatures, and replacing a short string everywhere
// would garble unrelated text.
const minSecretLen = 8

// secretsOf returns the secret values a request's headers carry: the
// Authorization value and the bearer token or SigV4 signature inside it,
// and the AWS session token. A server may echo any of them (in a problem's
// detail, a request ID, a Location, a debug page), and none may reach an
// error, a log record or a field of an error.
func secretsOf(h http.Header) []string {
	var secrets []string
	add := func(v string) {
		if len(v) >= minSecretLen {
			secrets = append(secrets, v)
		}
	}
	for _, v := range h.Values("Authorization") {
		add(v)
		if token, ok := strings.CutPrefix(v, "Bearer "); ok {
			add(token)
		}
		if _, sig, ok := strings.Cut(v, "Signature="); ok {
			add(strings.TrimRight(sig, ", "))
		}
	}
	for _, v := range h.Values("X-Amz-Security-Token") {
		add(v)
	}
	return secrets
}

// secretsSent returns the secrets of resp's request and of the requests
// before it in a redirect chain.
func secretsSent(resp *http.Response) []string {
	var secrets []string
	for req := resp.Request; req != nil; {
		secrets = append(secrets, secretsOf(req.Header)...)
		if req.Response == nil {
			break
		}
		req = req.Response.Request
	}
	return secrets
}

// escapes are the spellings JSON encoders and HTML pages use for the
// characters a token can hold that they do not write as is. base64 session
// tokens hold '+', '/' and '='; a static token may hold the others.
var escapes = map[byte][]string{
	'/':  {`\/`},
	'+':  {`\u002b`, `\u002B`, "&#43;", "&#x2b;", "&#x2B;"},
	'=':  {`\u003d`, `\u003D`, "&#61;", "&#x3d;", "&#x3D;"},
	'<':  {`\u003c`, `\u003C`, "&lt;"},
	'>':  {`\u003e`, `\u003E`, "&gt;"},
	'&':  {`\u0026`, "&amp;"},
	'\'': {`\u0027`, "&#39;", "&#x27;"},
	'"':  {`\"`, "&quot;"},
}

// withEscapes returns secrets followed by each one spelled with every
// escape of escapes applied to all its special characters at once, the way
// an encoder writes them. Decoded texts are redacted separately, so an
// escaping that mixes styles is still caught there.
func withEscapes(secrets []string) []string {
	out := slices.Clip(secrets) // appending must not write into the caller's array
	for _, s := range secrets {
		for c, spellings := range escapes {
			if strings.IndexByte(s, c) < 0 {
				continue
			}
			for _, e := range spellings {
				out = append(out, strings.ReplaceAll(s, string(c), e))
			}
		}
	}
	return out
}

// redactBody replaces every secret in body, then removes a secret's
// beginning left at the end of a body that was cut short.
func redactBody(body []byte, secrets []string, cut bool) []byte {
	for _, secret := range secrets {
		if bytes.Contains(body, []byte(secret)) {
			body = bytes.ReplaceAll(body, []byte(secret), []byte(apierrors.Redacted))
		}
	}
	if cut {
		for _, secret := range secrets {
			for n := len(secret) - 1; n >= minSecretLen/2; n-- {
				if bytes.HasSuffix(body, []byte(secret[:n])) {
					body = append(body[:len(body)-n:len(body)-n], apierrors.Redacted...)
					break
				}
			}
		}
	}
	return body
}

// redactSnippet keeps at most limit bytes of an error body with no secret
// left in them: the secrets, in every spelling, are replaced in all that was
// read before the cut, then a secret's beginning left at the cut is removed.
// truncated says the body was longer than what is returned, or its reading
// failed.
func redactSnippet(body []byte, secrets []string, limit int, truncated bool) ([]byte, bool) {
	spellings := withEscapes(secrets)
	body = redactBody(body, spellings, false)
	if len(body) > limit {
		body, truncated = body[:limit], true
	}
	if truncated {
		body = redactBody(body, spellings, true)
	}
	return body, truncated
}

// redactHeader replaces every secret in h's values, in place.
func redactHeader(h http.Header, secrets []string) {
	for _, values := range h {
		for i, v := range values {
			values[i] = redactText(v, secrets)
		}
	}
}

// redactText replaces every secret in s.
func redactText(s string, secrets []string) string {
	for _, secret := range secrets {
		if strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, apierrors.Redacted)
		}
	}
	return s
}

// redactedError shows a cause's text with the secrets replaced, and still
// unwraps to the cause for errors.Is and errors.As.
type redactedError struct {
	err  error
	text string
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }

// redactError returns err, or err behind a redactedError when its text
// holds a secret (a transport error quoting an echoed Location, say).
func redactError(err error, secrets []string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	if text := err.Error(); redactText(text, secrets) != text {
		return &redactedError{err: err, text: redactText(text, secrets)}
	}
	return err
}

// redactDecoded replaces the secrets in what e holds from the response,
// whose body has already been through redactSnippet. Unless the body spells
// characters with escapes (JSON \u, HTML &), the texts decoded from it are
// its own bytes and hold no secret any more: only the headers can.
func redactDecoded(e *apierrors.Error, body []byte, secrets []string) {
	if len(secrets) == 0 {
		return
	}
	if bytes.IndexByte(body, '\\') >= 0 || bytes.IndexByte(body, '&') >= 0 {
		e.Redact(secrets...)
		return
	}
	redactHeader(e.Header, secrets)
	e.RequestID = redactText(e.RequestID, secrets)
}
