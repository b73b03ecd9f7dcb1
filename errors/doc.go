// Package errors holds the typed errors every operation of the
// memberplatform-go SDK returns. Its name is the standard library's, so
// import it under an alias:
//
//	import apierrors "github.com/memberplatform/memberplatform-go/errors"
//
// Every failure is an *Error (the platform's answer), *ValidationError
// (input refused before sending), *TokenError (no bearer token) or
// *TransportError (no response). The Err* kinds classify them with
// errors.Is, and errors.As reaches the details:
//
//	if errors.Is(err, apierrors.ErrNotFound) { ... }
//	var apiErr *apierrors.Error
//	if errors.As(err, &apiErr) {
//		for _, f := range apiErr.FieldErrors() { fmt.Println(f.Field, f.Message) }
//	}
//
// # "The platform rejected my input"
//
// The platform answers invalid input with a 400 or a 422, in either
// format: a 400 whose body says VALIDATION_ERROR matches both
// ErrBadRequest (its status) and ErrUnprocessableEntity (its name), a 422
// only the latter, a 400 without a body naming a kind only the former.
// Neither kind alone means "rejected my input"; this one check does,
// whichever status and format the platform chose:
//
//	if errors.Is(err, apierrors.ErrBadRequest) || errors.Is(err, apierrors.ErrUnprocessableEntity) {
//		for _, f := range apierrors.FieldErrorsOf(err) { // empty when the body names no field
//			fmt.Println(f.Field, f.Message)
//		}
//	}
//
// A FieldError's Pointer says where the field is: a body member's JSON
// pointer ("/email"), or "?limit" for the query parameter limit, the one
// convention for query parameters whether a server or the SDK reports it.
//
// ErrInvalidInput is the SDK's own refusal, before sending (FieldErrorsOf
// lists its fields too); each params type's Validate method runs the same
// checks ahead of the call. If you retry throttled calls, test
// ErrRateLimited first: a 400 whose title says the provider rate limited
// the request matches it as well as ErrBadRequest. A rate limiter that
// could not reach its store (fleet.WithFailClosed while Redis is away) is
// no rate limit: that call matches ErrTransport and fleet.ErrUnavailable,
// not ErrRateLimited (see option.RateLimiter).
//
// No error string of this package holds a bearer token, an Authorization
// header, AWS credentials or a SigV4 signature (see (*Error).Redact).
package errors
