package core

// The area packages (accessmgmt, payments, customer) keep the client in an
// unexported field of their Service, so that no exported function of theirs
// names an internal type and only client.New can build a working Service.
// Each registers its constructor here from an init function; package client
// imports the areas, so their init functions have run before client.New.
var (
	NewAccessMgmt func(*Client) any
	NewPayments   func(*Client) any
	NewCustomer   func(*Client) any
)
