package core

import (
	"fmt"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// StatusSet is a set of HTTP error statuses, 400 to 599.
type StatusSet [4]uint64

// The statuses a StatusSet can hold.
const (
	minSetStatus = 400
	maxSetStatus = 599
)

// CheckErrorStatus returns an error naming option when status cannot be
// in a StatusSet.
func CheckErrorStatus(option string, status int) error {
	if status < minSetStatus || status > maxSetStatus {
		return fmt.Errorf("memberplatform: %s: %d is no HTTP error status (400 to 599)", option, status)
	}
	return nil
}

// Has reports whether the set holds status.
func (s *StatusSet) Has(status int) bool {
	i := status - minSetStatus
	return i >= 0 && status <= maxSetStatus && s[i/64]&(1<<(i%64)) != 0
}

// put adds or removes status; one outside 400 to 599 is ignored (the
// options refuse it first, with CheckErrorStatus).
func (s *StatusSet) put(status int, on bool) {
	i := status - minSetStatus
	if i < 0 || status > maxSetStatus {
		return
	}
	if on {
		s[i/64] |= 1 << (i % 64)
	} else {
		s[i/64] &^= 1 << (i % 64)
	}
}

// RetryStatuses are the caller's changes to the statuses retried
// (option.WithRetryOn, WithoutRetryOn): the last option for a status wins.
type RetryStatuses struct {
	On, Off StatusSet
}

// Retry adds status (checked with CheckErrorStatus) to those retried.
func (r *RetryStatuses) Retry(status int) { r.On.put(status, true); r.Off.put(status, false) }

// DontRetry removes status (checked with CheckErrorStatus) from those retried.
func (r *RetryStatuses) DontRetry(status int) { r.On.put(status, false); r.Off.put(status, true) }

// retriable is Retriable with the caller's statuses: they change only which
// answered statuses of an idempotent request are retried. An answer that
// says the provider is not configured stays final whatever its status: it
// is the environment's state, not a status the caller chose (WithRetryOn(503)
// would otherwise resend it, where the default does not).
func (p *RetryPolicy) retriable(idempotent bool, apiErr *apierrors.Error, err error) bool {
	if err == nil && apiErr != nil && idempotent {
		switch {
		case p.Statuses.Off.Has(apiErr.StatusCode):
			return false
		case p.Statuses.On.Has(apiErr.StatusCode):
			return apiErr.Kind() != apierrors.ErrProviderNotConfigured
		}
	}
	return Retriable(idempotent, apiErr, err)
}
