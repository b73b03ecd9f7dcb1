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
//     reset, timeout, cancelled context) after all attempts.
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
// No error string produced by this package contains a bearer token, an
// Authorization header, AWS credentials or a SigV4 signature: they never
// reach it.
package errors
