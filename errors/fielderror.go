package errors

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FieldError is one field-level detail of a failure: of either error
// format, or of the SDK's own input validation.
type FieldError struct {
	Field string // a readable path: "email", "permissions[2]", "address.postcode"
	// Pointer says where the field is in the request, if known: a body
	// member's JSON pointer as the server sent it ("/permissions/2"), or
	// for a query parameter "?" and its name ("?limit", Field "limit"),
	// the one convention for query parameters, of a server's answer or of
	// the SDK's own refusal. A path parameter's has none.
	Pointer string
	Message string // what is wrong with the value
}

// String returns "field: message", or whichever of the two is set.
func (f FieldError) String() string {
	if f.Field == "" || f.Message == "" {
		return f.Field + f.Message
	}
	return f.Field + ": " + f.Message
}

// FieldFromPointer turns a JSON pointer into a readable field path ("/email"
// → "email", "/permissions/2" → "permissions[2]", "/address/postcode" →
// "address.postcode", "#/a~1b" → "a/b") and a query parameter's pointer
// into its name ("?limit" → "limit"); anything else is returned as is.
func FieldFromPointer(pointer string) string {
	if name, ok := strings.CutPrefix(pointer, "?"); ok && name != "" {
		return name
	}
	p := strings.TrimPrefix(pointer, "#")
	if !strings.HasPrefix(p, "/") {
		return pointer
	}
	var b strings.Builder
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// FieldErrorsOf returns the FieldErrors of the *Error or *ValidationError
// in err's chain (through a *TransportError's or *TokenError's Last), or nil.
// Of errors joined (errors.Join, such as the Validate results of a batch),
// it returns every one's, in order.
func FieldErrorsOf(err error) []FieldError {
	for err != nil {
		if withFields, ok := err.(interface{ FieldErrors() []FieldError }); ok {
			return withFields.FieldErrors()
		}
		switch u := err.(type) {
		case *TransportError, *TokenError: // one failure: its cause's fields, else its Last's
			for _, e := range u.(interface{ Unwrap() []error }).Unwrap() {
				if fs := FieldErrorsOf(e); fs != nil {
					return fs
				}
			}
			return nil
		case interface{ Unwrap() []error }: // errors joined: every one's
			var out []FieldError
			for _, e := range u.Unwrap() {
				out = append(out, FieldErrorsOf(e)...)
			}
			return out
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		default:
			return nil
		}
	}
	return nil
}

// fieldErrors converts either format's items; nil for none.
func fieldErrors[T any](items []T, convert func(T) FieldError) []FieldError {
	if len(items) == 0 {
		return nil
	}
	out := make([]FieldError, len(items))
	for i, item := range items {
		out[i] = convert(item)
	}
	return out
}

// summarizeFields renders at most five field errors on one line.
func summarizeFields(fs []FieldError) string {
	const most = 5
	var b strings.Builder
	for i, f := range fs {
		if i == most {
			b.WriteString("; and " + strconv.Itoa(len(fs)-most) + " more")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(oneLine(f.String(), 200))
	}
	return b.String()
}

// oneLine folds s onto one line of at most n bytes, cut on a rune boundary.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(strings.Map(printable, strings.ToValidUTF8(s, "\uFFFD"))), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// printable blanks control characters and line separators and drops
// bidirectional overrides, so a server's text cannot forge or hide logs.
func printable(r rune) rune {
	switch {
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return ' '
	case r >= '\u202A' && r <= '\u202E', r >= '\u2066' && r <= '\u2069':
		return -1
	}
	return r
}
