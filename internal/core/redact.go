package core

import (
	"bytes"
	"net/http"
	"strings"
)

// Redacted replaces a secret the SDK sent wherever a response echoes it.
const Redacted = "[REDACTED]"

// minSecretLen is the shortest value treated as a secret: no issuer hands
// out shorter tokens or signatures, and replacing a short string everywhere
// would garble unrelated text.
const minSecretLen = 8

// secretsSent returns the secret values resp's request carried, and those of
// the requests before it in a redirect chain: the Authorization value and
// the bearer token or SigV4 signature inside it, and the AWS session token.
// A server may echo any of them (in a problem's detail, a request ID, a
// debug page), and they must not reach an error, a log record or a field of
// an error.
func secretsSent(resp *http.Response) []string {
	var secrets []string
	add := func(v string) {
		if len(v) >= minSecretLen {
			secrets = append(secrets, v)
			// A JSON encoder may escape '/' (base64 session tokens hold
			// it): match that spelling too.
			if strings.Contains(v, "/") {
				secrets = append(secrets, strings.ReplaceAll(v, "/", `\/`))
			}
		}
	}
	for req := resp.Request; req != nil; {
		for _, v := range req.Header.Values("Authorization") {
			add(v)
			if token, ok := strings.CutPrefix(v, "Bearer "); ok {
				add(token)
			}
			if _, sig, ok := strings.Cut(v, "Signature="); ok {
				add(strings.TrimRight(sig, ", "))
			}
		}
		for _, v := range req.Header.Values("X-Amz-Security-Token") {
			add(v)
		}
		if req.Response == nil {
			break
		}
		req = req.Response.Request
	}
	return secrets
}

// redactResponse replaces every secret the request sent, wherever resp's
// headers or body echo it, and returns the body. Header values are changed
// in place (the headers become the error's Header).
func redactResponse(resp *http.Response, body []byte) []byte {
	secrets := secretsSent(resp)
	if len(secrets) == 0 {
		return body
	}
	for _, values := range resp.Header {
		for i, v := range values {
			values[i] = redactString(v, secrets)
		}
	}
	for _, secret := range secrets {
		if bytes.Contains(body, []byte(secret)) {
			body = bytes.ReplaceAll(body, []byte(secret), []byte(Redacted))
		}
	}
	return body
}

// redactString replaces every secret in s.
func redactString(s string, secrets []string) string {
	for _, secret := range secrets {
		if strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, Redacted)
		}
	}
	return s
}
