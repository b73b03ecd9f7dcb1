// Package customer is the customer area of the platform: members'
// addresses.
//
// Reach its Service through a client, c.Customer. Errors use
// the code/message format, decoded into *errors.Error with a
// *errors.CodeMessage; validation errors list their fields.
package customer
