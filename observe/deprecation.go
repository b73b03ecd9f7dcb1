package observe

import (
	"context"
	"time"

	memberplatform "github.com/memberplatform/memberplatform-go"
)

// Deprecation is an answer that says its operation is deprecated
// (a Deprecation header, RFC 9745) or will be removed (a Sunset header,
// RFC 8594).
type Deprecation struct {
	// Operation is the call's operation, as Call.Operation names it.
	Operation string
	// Area is the call's area, as Call.Area names it.
	Area memberplatform.Area
	// Deprecated is when the platform deprecated the operation (it may be
	// in the future); zero when the answer gave no date ("Deprecation:
	// true") or only a Sunset.
	Deprecated time.Time
	// Sunset is when the platform will stop answering the operation;
	// zero when the answer gave none it could read.
	Sunset time.Time
	// Link is the target of the answer's Link with rel "deprecation" (or
	// else "sunset"): the platform's notes on the change; "" for none.
	Link string
}

// DeprecationObserver is an Observer that is also told of every call whose
// final answer says its operation is deprecated or has a sunset date
// (Deprecation), once per call, before EndCall. The client's logger gets a
// Warn record once per operation; the observer gets every such answer, to
// count them.
type DeprecationObserver interface {
	Observer
	Deprecated(ctx context.Context, d Deprecation)
}
