// Package accessmgmt is the access-management area of the platform: it
// updates users held by the configured access provider and replaces the
// permission sets of organization roles.
//
// Reach it through a client: c.AccessMgmt.UpdateUser(...) and
// c.AccessMgmt.ReplaceRolePermissions(...). Errors are problem documents
// (RFC 9457), decoded into *errors.Error with a *errors.Problem.
package accessmgmt
