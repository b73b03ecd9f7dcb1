package errors

import (
	stderrors "errors"
	"net/http"
	"strings"
	"unicode"
)

// Kinds of failure, for use with errors.Is. An *Error matches the kind of its
// HTTP status and, when its body names one, the kind the body names (so a 503
// whose problem says the provider is not configured matches both
// ErrProviderNotConfigured and ErrServiceUnavailable).
//
// Provider not configured and provider rate limited are described by the
// contract in words only, with no status. They are recognised by wording
// ("not configured", "rate limit", "too many requests", "throttled", in any
// spelling or case): in a problem's type or title, or a code, at any status;
// in a detail or message only on a 429 or a 5xx. The SDK assumes a 503 for
// provider not configured; such an error is final (Temporary is false and
// it is never retried).
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
	ErrProviderNotConfigured  = stderrors.New("memberplatform: provider not configured")  // by wording, see above; assumed 503
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
	if k := classifyText(name); k != nil {
		return k
	}
	if n == "NOT_FOUND" || strings.HasSuffix(n, "_NOT_FOUND") {
		return ErrNotFound // MEMBER_NOT_FOUND, USER_NOT_FOUND...
	}
	switch n {
	case "BAD_REQUEST", "INVALID_REQUEST", "INVALID_ARGUMENT":
		return ErrBadRequest
	case "UNAUTHORIZED", "UNAUTHENTICATED", "NOT_AUTHENTICATED", "AUTHENTICATION_REQUIRED":
		return ErrUnauthorized
	case "FORBIDDEN", "PERMISSION_DENIED", "ACCESS_DENIED", "INSUFFICIENT_PERMISSIONS":
		return ErrForbidden
	case "CONFLICT", "ALREADY_EXISTS":
		return ErrConflict
	case "UNPROCESSABLE_ENTITY", "UNPROCESSABLE_CONTENT", "VALIDATION", "VALIDATION_ERROR", "VALIDATION_FAILED", "VALIDATION_EXCEPTION":
		return ErrUnprocessableEntity
	case "INTERNAL_SERVER_ERROR", "INTERNAL_ERROR", "INTERNAL":
		return ErrInternal
	case "NOT_IMPLEMENTED", "UNIMPLEMENTED":
		return ErrNotImplemented
	}
	return nil
}

// classifyText recognises the two responses the contract describes only in
// words. Provider not configured ("The access-management provider is not
// configured for this environment"): the contract gives no status; this SDK
// assumes a 503 but recognises the response by wording, "not configured" or
// "unconfigured", at any status when a problem's type or title or a code says
// it, and on a 5xx when only the detail or message does (see
// (*Error).textKind). Rate limited: "rate limit", "ratelimit", "too many
// requests" or "throttl...", under the same rule with 429 or a 5xx.
func classifyText(s string) error {
	n := normalizeName(s)
	switch {
	case strings.Contains(n, "NOT_CONFIGURED"), strings.Contains(n, "UNCONFIGURED"):
		return ErrProviderNotConfigured
	case strings.Contains(n, "RATE_LIMIT"), strings.Contains(n, "RATELIMIT"),
		strings.Contains(n, "TOO_MANY_REQUESTS"), strings.Contains(n, "THROTTL"):
		return ErrRateLimited
	}
	return nil
}

// normalizeName upper-cases s, turns every run of non-alphanumerics into a
// single underscore and splits camel case: "Not Found", "not-found",
// "NotFound" and the last segment of a type URI all compare as NOT_FOUND.
func normalizeName(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	under, lower := false, false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(unicode.ToUpper(r))
			under, lower = false, true
		case r >= 'A' && r <= 'Z':
			if lower {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			under, lower = false, false
		default:
			if !under && b.Len() > 0 {
				b.WriteByte('_')
				under = true
			}
			lower = false
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
