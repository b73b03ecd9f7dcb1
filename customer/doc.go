// Package customer is the customer area of the platform: it creates or
// updates a member's address.
//
// Reach it through a client: c.Customer.UpsertMemberAddress(...). Errors use
// the code/message format, decoded into *errors.Error with a
// *errors.CodeMessage; validation errors list their fields.
package customer
