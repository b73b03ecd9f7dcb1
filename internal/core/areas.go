package core

// Constructors of the area packages' Services, registered from their init
// functions so no exported function of theirs names an internal type.
var (
	NewAccessMgmt func(*Client) any
	NewPayments   func(*Client) any
	NewCustomer   func(*Client) any
)
