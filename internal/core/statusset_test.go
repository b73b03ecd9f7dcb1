package core

import "testing"

// A status outside 400 to 599 is ignored by a StatusSet: put indexed the
// set with it and panicked (a negative index) for a caller that had not
// checked it with CheckErrorStatus first.
func TestStatusSetIgnoresStatusesOutOfRange(t *testing.T) {
	var r RetryStatuses
	for _, status := range []int{0, 200, 399, 600, 1 << 20, -1} {
		r.Retry(status)
		r.DontRetry(status)
	}
	if r.On != (StatusSet{}) || r.Off != (StatusSet{}) {
		t.Errorf("statuses out of range changed the sets: %v %v", r.On, r.Off)
	}
	r.Retry(409)
	if !r.On.Has(409) || r.On.Has(408) {
		t.Error("Retry(409) did not add 409 alone")
	}
}
