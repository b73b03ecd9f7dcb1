package memberplatform

// Area is one backend of the platform. The backends fail and throttle
// independently, so a client keeps its load control (adaptive pacer, retry
// budget, rate limiter) per area: a throttle or an outage of one never
// delays, refuses or fails a call of another. Package option re-exports
// the type and its values as option.Area, the names to use; telemetry
// reports them as the memberplatform.area attribute.
type Area string

// The areas of the platform.
const (
	AreaAccessMgmt Area = "accessmgmt" // the access provider behind /auth/access-management (package accessmgmt)
	AreaPayments   Area = "payments"   // /payment-methods (package payments)
	AreaCustomer   Area = "customer"   // /customer (package customer)
	AreaToken      Area = "token"      // POST /auth/token, the SigV4 token call
	// AreaOther holds client.Execute calls to a path under none of the
	// prefixes above.
	AreaOther Area = "other"
)
