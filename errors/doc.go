// Package errors holds the typed errors returned by every operation of the
// memberplatform-go SDK.
//
// The package is named errors, like the standard library's, so import it under
// an alias, as Kubernetes does with its API errors:
//
//	import apierrors "github.com/memberplatform/memberplatform-go/errors"
//
// Every failure the SDK returns is one of four types, all usable with the
// standard errors.As and errors.Is:
//
//   - *Error: the platform answered with a non-2xx status (or a 2xx body that
//     could not be decoded). It carries the status, headers, request ID, the
//     number of attempts, a bounded snippet of the raw body and, when the body
//     was one of the platform's two error formats, the decoded *Problem
//     (RFC 9457, operations 1–3) or *CodeMessage (operation 4).
//   - *ValidationError: the SDK refused the input before sending anything. It
//     lists every offending field.
//   - *TokenError: the bearer token could not be obtained.
//   - *TransportError: no HTTP response was received (connection refused,
//     reset, timeout, cancelled context) after all attempts, or a rate
//     limiter refused to wait for the next send slot. A refusal by the
//     client's adaptive rate limit matches ErrRateLimited (and
//     context.DeadlineExceeded when the deadline was the reason), and its
//     Last holds the 429 the call saw, if any.
//
// ErrRetryBudgetExhausted additionally marks a call the client's retry
// budget stopped retrying, whatever its error type (see its documentation).
//
// The sentinel kinds (ErrBadRequest, ErrNotFound, ErrRateLimited, ...) match
// with errors.Is:
//
//	if errors.Is(err, apierrors.ErrNotFound) { ... }
//	var apiErr *apierrors.Error
//	if errors.As(err, &apiErr) {
//		for _, f := range apiErr.FieldErrors() { fmt.Println(f.Field, f.Message) }
//	}
//
// # Decoding error bodies
//
// FromResponse reads at most MaxBodySnippet (64 KiB) of an error body,
// drains a bounded further amount and closes it, so the connection can be
// reused. The decoder never fails and never panics. It reads the contract's
// two formats: a problem document (RFC 9457: type, title, status, detail,
// instance, serviceCode, serviceMeta, serviceErrors[{detail, pointer}]),
// recognised by its media type (application/problem+json, any parameters)
// or its members, and a code/message body (code, message,
// errors[{field, message}]). Member names match as encoding/json matches
// them to struct fields, so "Detail" or "POINTER" count. Anything else (an
// HTML page from a proxy, plain text, an empty body, another API's JSON,
// truncated JSON) still yields an *Error with the status, headers, request
// ID, Retry-After and a bounded Body snippet. Members that are missing or
// of the wrong type are left at their zero value and kept in Extensions;
// the HTTP status is authoritative over a status in the body.
//
// # Kinds
//
// An *Error matches the kind of its HTTP status (400 ErrBadRequest, 401
// ErrUnauthorized, ..., 502–504 ErrServiceUnavailable) and the kind its body
// names: a problem type or title, or a code, spelling BAD_REQUEST,
// NOT_FOUND, MEMBER_NOT_FOUND, VALIDATION_ERROR and the like. The contract
// describes two responses only in words, and gives no status for them:
//
//   - provider not configured: this SDK assumes a 503 and recognises it by
//     a problem type, title or code saying "not configured" (any status),
//     or a detail saying so on a 5xx. It matches ErrProviderNotConfigured
//     (and ErrServiceUnavailable for a 503), and is not Temporary.
//   - provider rate limited: a 429, or a body saying "rate limit", "too many
//     requests" or "throttled". RetryAfter holds the Retry-After header
//     (delta-seconds or HTTP date) as a duration.
//
// Kind returns the single most specific kind.
//
// No error string produced by this package contains a bearer token, an
// Authorization header, AWS credentials or a SigV4 signature: the SDK
// redacts them, in every spelling, from what a server echoes (see Redact).
package errors
