package client

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/flextime"
	"github.com/memberplatform/memberplatform-go/internal/redact"
)

const (
	maxTokenBodySnippet = 1024                      // bounds TokenError.Body
	maxTokenLifetime    = 10 * 365 * 24 * time.Hour // caps every expiry believed, before UnixNano overflows (2262)
)

// parseTokenResponse reads a token out of the shapes SigV4TokenSource
// documents; sent are the credentials the token request carried.
func parseTokenResponse(status int, body []byte, now time.Time, sent []string) (Token, error) {
	unusable := func(reason string) (Token, error) {
		return Token{}, &apierrors.TokenError{StatusCode: status, Body: tokenSnippet(body, sent), Reason: reason, Err: apierrors.ErrUnexpectedResponseBody}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(body), &obj); err != nil || obj == nil {
		return unusable("token response is not a JSON object")
	}
	var value string
	for _, k := range []string{"accessToken", "access_token", "token"} {
		if json.Unmarshal(obj[k], &value) == nil && value != "" {
			break
		}
		value = ""
	}
	if value == "" {
		return unusable("token response has no accessToken, access_token or token string")
	}
	exp, ok := expiryFromResponse(obj, now)
	if !ok {
		exp, ok = jwtExpiry(value)
	}
	if !ok {
		exp = now.Add(DefaultTokenLifetime)
	}
	if limit := now.Add(maxTokenLifetime); exp.After(limit) {
		exp = limit // a past expiry is for the token cache to handle
	}
	return Token{Value: value, Expiry: exp}, nil
}

// tokenSnippet is TokenError.Body: at most maxTokenBodySnippet bytes of an
// unusable 2xx body, a copy (not pinning the whole body), with the
// credentials the request carried replaced, as in an *errors.Error's Body:
// a server may echo the SigV4 Authorization or session token, and the cut
// may leave a credential's beginning.
func tokenSnippet(body []byte, sent []string) []byte {
	set := redact.New(sent...)
	clean := set.Bytes(body)
	if len(clean) <= maxTokenBodySnippet {
		return bytes.Clone(clean)
	}
	return set.Cut(bytes.Clone(clean[:maxTokenBodySnippet]))
}

func expiryFromResponse(obj map[string]json.RawMessage, now time.Time) (time.Time, bool) {
	for _, k := range []string{"expiresIn", "expires_in"} {
		// A JSON number or a numeric string: obj holds only valid JSON.
		if secs, err := strconv.ParseFloat(strings.TrimSpace(strings.Trim(string(obj[k]), `"`)), 64); err == nil && secs > 0 {
			secs = min(secs, maxTokenLifetime.Seconds()) // a huge value would overflow into the past
			return now.Add(time.Duration(secs * float64(time.Second))), true
		}
	}
	for _, k := range []string{"expiresAt", "expires_at"} {
		var t flextime.Time
		if raw := obj[k]; raw != nil && json.Unmarshal(raw, &t) == nil && !t.IsZero() {
			return t.Time, true
		}
	}
	return time.Time{}, false
}

// jwtExpiry reads a JWT's exp claim, unverified: it only says when to refresh.
func jwtExpiry(value string) (exp time.Time, ok bool) {
	var claims struct {
		Exp json.Number `json:"exp"`
	}
	parts := strings.Split(value, ".")
	if len(parts) != 3 {
		return time.Time{}, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil || json.Unmarshal(payload, &claims) != nil {
		return time.Time{}, false
	}
	f, err := claims.Exp.Float64() // fails on a missing exp
	if err != nil || f <= 0 {
		return time.Time{}, false
	}
	f = min(f, 1e12) // past any cap, and within int64: converting 1e300 is undefined
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)), true
}
