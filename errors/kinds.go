package errors

import (
	stderrors "errors"
	"net/http"
	"strings"
	"unicode"
)

// Kinds of failure, for use with errors.Is. An *Error matches the kind of
// its HTTP status and the kind its body names, if any: a problem's type or
// title, or a code, spelling a response name (BAD_REQUEST, NOT_FOUND,
// MEMBER_NOT_FOUND, VALIDATION_ERROR...), in any case or separator.
//
// The contract describes two responses in words only, without a status,
// so they are recognised by wording ("not configured"; "rate limit", "too
// many requests", "throttled"): in a problem's type or title, or a code, at
// any status; in a detail or message only on a 429 or a 5xx (a 400 saying
// "rate limit must be positive" is not one). Provider not configured is
// assumed a 503, and final: never retried, Temporary false.
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

// ErrRetryBudgetExhausted matches a call the retry budget
// (option.WithRetryBudget) kept from a retry: it returns its last attempt's
// error, of its own type and kind, with this as a cause in an *Error's Err
// or beside a *TransportError's (also through a *TokenError).
var ErrRetryBudgetExhausted = stderrors.New("memberplatform: retry budget exhausted")

// ErrLoadShed matches a call of which the client's admission control
// (option.WithoutAdmissionControl turns it off) refused an attempt
// locally, without sending it, because nearly all of its operation's
// recent attempts had failed (or, when the whole area is down, the
// area's). The error also matches what those failures matched, so a
// handler of outages needs no change:
//
//   - Refused at its first attempt, the call sent nothing: its error is an
//     *Error (the client's own, as a proxy's local reply would be; no
//     Header, no body, Attempts as before this send: 0 unless a 401 was
//     resent) of the status of the operation's last 5xx
//     answer, matching its kind (a 503 ErrServiceUnavailable, a 500
//     ErrInternal), or a *TransportError when the failures were attempts
//     without an answer (its Timeout reports true when they timed out).
//   - Refused at a retry, the call returns its last attempt's error,
//     unchanged but for this cause beside it (as ErrRetryBudgetExhausted).
//
// RetryAfterOf reads when the operation's next probe goes out: at most
// 100 ms, after which a call's first attempt may be sent (or refused
// again, while the operation keeps failing); or the Retry-After of its
// last 5xx when that is later.
var ErrLoadShed = stderrors.New("memberplatform: refused locally: the operation is failing (admission control)")

var statusKinds = map[int]error{
	http.StatusBadRequest: ErrBadRequest, http.StatusUnauthorized: ErrUnauthorized, http.StatusForbidden: ErrForbidden,
	http.StatusNotFound: ErrNotFound, http.StatusConflict: ErrConflict, http.StatusUnprocessableEntity: ErrUnprocessableEntity,
	http.StatusTooManyRequests: ErrRateLimited, http.StatusInternalServerError: ErrInternal, http.StatusNotImplemented: ErrNotImplemented,
	http.StatusBadGateway: ErrServiceUnavailable, http.StatusServiceUnavailable: ErrServiceUnavailable, http.StatusGatewayTimeout: ErrServiceUnavailable,
}

// kindForName maps a response name, or a common spelling of it, to a kind,
// or nil: the contract gives no statuses or code values for its names.
func kindForName(name string) error {
	if k := classifyText(name); k != nil {
		return k
	}
	n := normalizeName(name)
	if strings.HasSuffix(n, "_NOT_FOUND") { // MEMBER_NOT_FOUND, USER_NOT_FOUND...
		return ErrNotFound
	}
	return nameKinds[n]
}

var nameKinds = map[string]error{
	"BAD_REQUEST": ErrBadRequest, "INVALID_REQUEST": ErrBadRequest, "INVALID_ARGUMENT": ErrBadRequest,
	"UNAUTHORIZED": ErrUnauthorized, "UNAUTHENTICATED": ErrUnauthorized, "NOT_AUTHENTICATED": ErrUnauthorized, "AUTHENTICATION_REQUIRED": ErrUnauthorized,
	"FORBIDDEN": ErrForbidden, "PERMISSION_DENIED": ErrForbidden, "ACCESS_DENIED": ErrForbidden, "INSUFFICIENT_PERMISSIONS": ErrForbidden,
	"NOT_FOUND": ErrNotFound, "CONFLICT": ErrConflict, "ALREADY_EXISTS": ErrConflict,
	"UNPROCESSABLE_ENTITY": ErrUnprocessableEntity, "UNPROCESSABLE_CONTENT": ErrUnprocessableEntity, "VALIDATION": ErrUnprocessableEntity,
	"VALIDATION_ERROR": ErrUnprocessableEntity, "VALIDATION_FAILED": ErrUnprocessableEntity, "VALIDATION_EXCEPTION": ErrUnprocessableEntity,
	"INTERNAL_SERVER_ERROR": ErrInternal, "INTERNAL_ERROR": ErrInternal, "INTERNAL": ErrInternal,
	"NOT_IMPLEMENTED": ErrNotImplemented, "UNIMPLEMENTED": ErrNotImplemented,
}

// classifyText recognises the two responses described in words only (see the Err* kinds).
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

// normalizeName makes "Not Found", "not-found" and "NotFound" NOT_FOUND.
func normalizeName(s string) string {
	if s == "" {
		return "" // without Grow's allocation: a code/message body has no type
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	separate, afterLower := false, false
	for _, r := range s {
		lower, upper := r >= 'a' && r <= 'z' || r >= '0' && r <= '9', r >= 'A' && r <= 'Z'
		if !lower && !upper {
			separate, afterLower = b.Len() > 0, false
			continue
		}
		if separate || upper && afterLower {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
		separate, afterLower = false, lower
	}
	return b.String()
}

// lastSegment returns what follows a type URI's last '/', '#' or ':', or s.
func lastSegment(s string) string {
	s = strings.TrimRight(s, "/#:")
	if i := strings.LastIndexAny(s, "/#:"); i >= 0 {
		return s[i+1:]
	}
	return s
}
