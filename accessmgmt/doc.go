// Package accessmgmt is the access-management area of the platform: the
// users held by the configured access provider and the permission sets of
// organization roles.
//
// Reach its Service through a client, c.AccessMgmt. Errors are problem
// documents (RFC 9457), decoded into *errors.Error with a *errors.Problem.
package accessmgmt
