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
// No error string of this package holds a bearer token, an Authorization
// header, AWS credentials or a SigV4 signature (see (*Error).Redact).
package errors
