// Package validate checks SDK input before any request is sent and collects
// every problem into one *errors.ValidationError.
package validate

import (
	"net/mail"
	"regexp"
	"strings"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// Errors collects field errors for one operation.
type Errors struct {
	Operation string
	fields    []apierrors.FieldError
}

// Add records that field is invalid.
func (v *Errors) Add(field, msg string) {
	v.fields = append(v.fields, apierrors.FieldError{Field: field, Message: msg})
}

// Err returns nil when nothing was added, else a *errors.ValidationError
// listing every field.
func (v *Errors) Err() error {
	if len(v.fields) == 0 {
		return nil
	}
	return &apierrors.ValidationError{Operation: v.Operation, Fields: v.fields}
}

var (
	e164Re = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)
	uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	roleRe = regexp.MustCompile(`^org-[a-z0-9_-]+$`)
	permRe = regexp.MustCompile(`^[a-z0-9:._*-]+$`)
)

// E164 reports whether s is an E.164 number: '+', then 2 to 15 digits, the
// first not 0.
func E164(s string) bool { return e164Re.MatchString(s) }

// Email reports whether s is a bare email address (no display name).
func Email(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == ""
}

// UUID reports whether s is a UUID in its 8-4-4-4-12 hex form.
func UUID(s string) bool { return uuidRe.MatchString(s) }

// RoleSlug reports whether s matches ^org-[a-z0-9_-]+$.
func RoleSlug(s string) bool { return roleRe.MatchString(s) }

// PermissionSlug reports whether s matches ^[a-z0-9:._*-]+$.
func PermissionSlug(s string) bool { return permRe.MatchString(s) }

// Blank reports whether s is empty or only white space.
func Blank(s string) bool { return strings.TrimSpace(s) == "" }

// OpaqueID checks an identifier the SDK does not know the shape of (a
// provider's user or organization ID): it must be non-blank and must not be
// "." or "..", which could change the meaning of the path.
func OpaqueID(v *Errors, field, s string) {
	switch {
	case Blank(s):
		v.Add(field, "must not be empty")
	case s == "." || s == "..":
		v.Add(field, `must not be "." or ".."`)
	}
}

// UUIDParam checks a path parameter that the contract types as a UUID.
func UUIDParam(v *Errors, field, s string) {
	if !UUID(s) {
		if Blank(s) {
			v.Add(field, "must not be empty")
			return
		}
		v.Add(field, "must be a UUID (8-4-4-4-12 hexadecimal digits)")
	}
}
