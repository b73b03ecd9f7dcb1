package errors

import (
	stderrors "errors"
	"net/http"
	"strings"
)

// Kinds of failure, for use with errors.Is. An *Error matches the kind of its
// HTTP status and, when its body names one, the kind the body names (so a 503
// whose problem says the provider is not configured matches both
// ErrProviderNotConfigured and ErrServiceUnavailable).
var (
	ErrBadRequest             = stderrors.New("memberplatform: bad request")              // 400, or a body code BAD_REQUEST
	ErrUnauthorized           = stderrors.New("memberplatform: unauthorized")             // 401, or UNAUTHORIZED / UNAUTHENTICATED
	ErrForbidden              = stderrors.New("memberplatform: forbidden")                // 403, or FORBIDDEN
	ErrNotFound               = stderrors.New("memberplatform: not found")                // 404, or NOT_FOUND / MEMBER_NOT_FOUND
	ErrConflict               = stderrors.New("memberplatform: conflict")                 // 409, or CONFLICT
	ErrUnprocessableEntity    = stderrors.New("memberplatform: unprocessable entity")     // 422, or UNPROCESSABLE_ENTITY / VALIDATION_ERROR
	ErrRateLimited            = stderrors.New("memberplatform: rate limited")             // 429, or a body that says the provider rate limited the request
	ErrInternal               = stderrors.New("memberplatform: internal error")           // 500, or INTERNAL_SERVER_ERROR / INTERNAL_ERROR
	ErrNotImplemented         = stderrors.New("memberplatform: not implemented")          // 501, or NOT_IMPLEMENTED
	ErrServiceUnavailable     = stderrors.New("memberplatform: service unavailable")      // 502, 503 or 504
	ErrProviderNotConfigured  = stderrors.New("memberplatform: provider not configured")  // see classifyText
	ErrInvalidInput           = stderrors.New("memberplatform: invalid input")            // *ValidationError: refused before sending
	ErrTokenUnavailable       = stderrors.New("memberplatform: token unavailable")        // *TokenError
	ErrTransport              = stderrors.New("memberplatform: transport failure")        // *TransportError
	ErrUnexpectedResponseBody = stderrors.New("memberplatform: unexpected response body") // a 2xx body that could not be decoded
)

// kindForStatus maps an HTTP status to its kind, or nil.
func kindForStatus(status int) error {
	switch status {
	case http.StatusBadRequest:
		return ErrBadRequest
	case http.StatusUnauthorized:
		return ErrUnauthorized
	case http.StatusForbidden:
		return ErrForbidden
	case http.StatusNotFound:
		return ErrNotFound
	case http.StatusConflict:
		return ErrConflict
	case http.StatusUnprocessableEntity:
		return ErrUnprocessableEntity
	case http.StatusTooManyRequests:
		return ErrRateLimited
	case http.StatusInternalServerError:
		return ErrInternal
	case http.StatusNotImplemented:
		return ErrNotImplemented
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return ErrServiceUnavailable
	}
	return nil
}

// kindForName maps the contract's response names (BAD_REQUEST, NOT_FOUND, ...)
// and common spellings of them to a kind, or nil. The contract names its
// responses but does not give their numeric statuses or code values, so a
// problem title/type or a code/message code that spells one of these names is
// classified by the name as well as by the status.
func kindForName(name string) error {
	n := normalizeName(name)
	if n == "" {
		return nil
	}
	if strings.Contains(n, "NOT_CONFIGURED") {
		return ErrProviderNotConfigured
	}
	if strings.Contains(n, "RATE_LIMIT") || strings.Contains(n, "TOO_MANY_REQUESTS") {
		return ErrRateLimited
	}
	switch n {
	case "BAD_REQUEST", "INVALID_REQUEST":
		return ErrBadRequest
	case "UNAUTHORIZED", "UNAUTHENTICATED":
		return ErrUnauthorized
	case "FORBIDDEN", "PERMISSION_DENIED":
		return ErrForbidden
	case "NOT_FOUND", "MEMBER_NOT_FOUND", "USER_NOT_FOUND", "ROLE_NOT_FOUND":
		return ErrNotFound
	case "CONFLICT":
		return ErrConflict
	case "UNPROCESSABLE_ENTITY", "UNPROCESSABLE_CONTENT", "VALIDATION_ERROR", "VALIDATION_FAILED":
		return ErrUnprocessableEntity
	case "INTERNAL_SERVER_ERROR", "INTERNAL_ERROR":
		return ErrInternal
	case "NOT_IMPLEMENTED":
		return ErrNotImplemented
	}
	return nil
}

// classifyText recognises the two responses the contract describes only in
// words. Provider not configured: the contract gives no status; this SDK
// assumes a 503 but recognises the response by its problem type, title or
// detail mentioning "not configured" (any status). Rate limited: a body whose
// type, title or detail says "rate limit" or "too many requests".
func classifyText(s string) error {
	n := normalizeName(s)
	switch {
	case strings.Contains(n, "NOT_CONFIGURED"):
		return ErrProviderNotConfigured
	case strings.Contains(n, "RATE_LIMIT"), strings.Contains(n, "TOO_MANY_REQUESTS"):
		return ErrRateLimited
	}
	return nil
}

// normalizeName upper-cases s and turns every run of non-alphanumerics into a
// single underscore: "Not Found" and "not-found" and the last segment of a
// type URI all compare as NOT_FOUND.
func normalizeName(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	under := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
			under = false
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
			under = false
		default:
			if !under && b.Len() > 0 {
				b.WriteByte('_')
				under = true
			}
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

// lastSegment returns what follows the last '/', '#' or ':' of a type URI
// ("https://x/probs/not-found" → "not-found"), or s when there is none.
func lastSegment(s string) string {
	s = strings.TrimRight(s, "/#:")
	if i := strings.LastIndexAny(s, "/#:"); i >= 0 {
		return s[i+1:]
	}
	return s
}
