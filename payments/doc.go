// Package payments is the payment-method area of the platform: stored
// payment cards.
//
// Reach its Service through a client, c.Payments. Errors are problem
// documents (RFC 9457) whose serviceCode is free-form; a platform that has
// not implemented an operation answers "Not implemented", which matches
// errors.Is(err, apierrors.ErrNotImplemented).
package payments
