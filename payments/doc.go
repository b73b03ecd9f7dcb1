// Package payments is the payment-method area of the platform: it updates a
// stored payment card (make it primary, change its expiry).
//
// Reach it through a client: c.Payments.UpdatePaymentMethod(...). Errors are
// problem documents (RFC 9457) whose serviceCode is free-form; a platform
// that has not implemented the operation answers "Not implemented", which
// matches errors.Is(err, apierrors.ErrNotImplemented).
package payments
