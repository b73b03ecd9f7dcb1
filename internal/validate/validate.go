// Package validate checks SDK input before any request is sent and collects
// every problem into one *errors.ValidationError.
package validate

import (
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"

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

// AddQuery records that the query parameter name is invalid: its Pointer
// is "?name", the convention for query parameters (errors.FieldError).
func (v *Errors) AddQuery(name, msg string) {
	v.fields = append(v.fields, apierrors.FieldError{Field: name, Pointer: "?" + name, Message: msg})
}

// Err returns nil when nothing was added, else a *errors.ValidationError
// listing every field.
func (v *Errors) Err() error {
	if len(v.fields) == 0 {
		return nil
	}
	return &apierrors.ValidationError{Operation: v.Operation, Fields: v.fields}
}

// The contract's patterns are checked byte by byte, not with regexp (a role
// may carry thousands of permissions); validate_test.go holds the regexps.

// E164 reports whether s is an E.164 number (^\+[1-9][0-9]{1,14}$): '+',
// then 2 to 15 digits, the first not 0.
func E164(s string) bool {
	if len(s) < 3 || len(s) > 16 || s[0] != '+' || s[1] == '0' {
		return false
	}
	return allIn(s[1:], &digitBytes)
}

// Email reports whether s is a bare email address: exactly what
// net/mail.ParseAddress parses back to s itself with no name (the oracle of
// validate_test.go), a dot-atom, '@', and a dot-atom or bracketed IP.
func Email(s string) bool {
	at := strings.IndexByte(s, '@')
	if at < 0 || !dotAtom(s[:at]) {
		return false
	}
	domain := s[at+1:]
	if literal, ok := strings.CutPrefix(domain, "["); ok { // "[ip]" without a zone, net/mail's only literal
		ip, err := netip.ParseAddr(strings.TrimSuffix(literal, "]"))
		return strings.HasSuffix(literal, "]") && err == nil && ip.Zone() == ""
	}
	return dotAtom(domain)
}

// dotAtom reports whether s is an RFC 5322 dot-atom as net/mail reads one:
// non-empty runs of atext (RFC 6532's UTF-8 included) between dots.
func dotAtom(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") || !utf8.ValidString(s) {
		return false
	}
	for i := range len(s) {
		// ASCII must be atext or '.': printable, not one of RFC 5322's specials.
		if c := s[i]; c < utf8.RuneSelf && (c < '!' || c > '~' || strings.IndexByte(`()<>[]:;@\,"`, c) >= 0) {
			return false
		}
	}
	return true
}

// UUID reports whether s is a UUID in its 8-4-4-4-12 hexadecimal form.
func UUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := range len(s) {
		dash := i == 8 || i == 13 || i == 18 || i == 23
		if dash && s[i] != '-' || !dash && !hexBytes[s[i]] {
			return false
		}
	}
	return true
}

// RoleSlug reports whether s matches ^org-[a-z0-9_-]+$.
func RoleSlug(s string) bool {
	return len(s) > len("org-") && strings.HasPrefix(s, "org-") && allIn(s[len("org-"):], &roleSlugBytes)
}

// PermissionSlug reports whether s matches ^[a-z0-9:._*-]+$.
func PermissionSlug(s string) bool {
	return s != "" && allIn(s, &permissionSlugBytes)
}

var (
	roleSlugBytes       = byteSet("abcdefghijklmnopqrstuvwxyz0123456789_-")
	permissionSlugBytes = byteSet("abcdefghijklmnopqrstuvwxyz0123456789:._*-")
	digitBytes          = byteSet("0123456789")
	hexBytes            = byteSet("0123456789abcdefABCDEF")
)

func byteSet(chars string) (set [256]bool) {
	for i := range len(chars) {
		set[chars[i]] = true
	}
	return set
}

// allIn reports whether every byte of s is in set.
func allIn(s string, set *[256]bool) bool {
	for i := range len(s) {
		if !set[s[i]] {
			return false
		}
	}
	return true
}

// Blank reports whether s is empty or only white space. An ASCII first byte
// above ' ' settles it without trimming.
func Blank(s string) bool {
	if s != "" && s[0] > ' ' && s[0] < utf8.RuneSelf {
		return false
	}
	return strings.TrimSpace(s) == ""
}

// OpaqueID checks an identifier of unknown shape: non-blank, and not "." or
// "..", which would change the meaning of the path.
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
	switch {
	case UUID(s):
	case Blank(s):
		v.Add(field, "must not be empty")
	default:
		v.Add(field, "must be a UUID (8-4-4-4-12 hexadecimal digits)")
	}
}

// The page size every list takes in its query: an assumption, the contract
// describing no list. 0 asks for the server's default; the SDK refuses a
// limit outside 0..MaxLimit and sdktest one outside 1..MaxLimit.
const (
	LimitParam = "limit"
	MaxLimit   = 100
)

// LimitMessage is what is wrong with a limit out of range.
var LimitMessage = "must be between 1 and " + strconv.Itoa(MaxLimit)

// Limit adds to v a list's limit out of range (0, the server's default,
// is in it), as a query parameter.
func Limit(v *Errors, limit int) {
	if limit < 0 || limit > MaxLimit {
		v.AddQuery(LimitParam, LimitMessage)
	}
}
