package errors

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/memberplatform/memberplatform-go/internal/jsonscan"
)

// Problem is an RFC 9457 problem details document, the error format of the
// access-management and payment-method operations. Members are decoded
// leniently: a member that is missing or has the wrong type is left at its
// zero value (RFC 9457 §3.1 says to ignore it) and kept, undecoded, in
// Extensions, so nothing the server sent is lost.
type Problem struct {
	Type     string // URI identifying the problem type; "" means about:blank
	Title    string
	Status   int // as the body says; Error.StatusCode (the HTTP status) is authoritative
	Detail   string
	Instance string
	// ServiceCode is the platform's service error code: 8 digits for
	// operations 1 and 2, a free-form string for operation 3. A numeric JSON
	// value is kept as its decimal text.
	ServiceCode string
	// ServiceMeta is the service's domain metadata: arbitrary keys and values.
	ServiceMeta map[string]any
	// ServiceErrors are the field-level errors of the body.
	ServiceErrors []ServiceError
	// Extensions holds every other member of the document (and any standard
	// member whose type was wrong), decoded as generic JSON values.
	Extensions map[string]any
}

// ServiceError is one item of a problem's serviceErrors member.
type ServiceError struct {
	Detail  string `json:"detail"`
	Pointer string `json:"pointer"`
}

// FieldErrors returns the problem's field-level errors: its serviceErrors.
func (p *Problem) FieldErrors() []FieldError {
	if p == nil || len(p.ServiceErrors) == 0 {
		return nil
	}
	out := make([]FieldError, 0, len(p.ServiceErrors))
	for _, se := range p.ServiceErrors {
		out = append(out, FieldError{Field: FieldFromPointer(se.Pointer), Pointer: se.Pointer, Message: se.Detail})
	}
	return out
}

// decodeProblem decodes members into a Problem, never failing. Members are
// read in order, as encoding/json reads them into a struct: a later member
// of the same name (in any case) overrides an earlier one, and a member of
// the wrong type leaves the field as it was and is kept in Extensions.
func decodeProblem(members []jsonscan.Member) *Problem {
	p := &Problem{}
	for _, m := range members {
		var ok bool
		switch raw := m.Value; memberOf(m.Name) {
		case mType:
			ok = decodeString(raw, &p.Type)
		case mTitle:
			ok = decodeString(raw, &p.Title)
		case mDetail:
			ok = decodeString(raw, &p.Detail)
		case mInstance:
			ok = decodeString(raw, &p.Instance)
		case mStatus:
			ok = decodeInt(raw, &p.Status)
		case mServiceCode:
			ok = decodeStringOrNumber(raw, &p.ServiceCode)
		case mServiceMeta:
			ok = json.Unmarshal(raw, &p.ServiceMeta) == nil && p.ServiceMeta != nil
		case mServiceErrors:
			p.ServiceErrors = nil
			ok = decodeItems(raw, "detail", "pointer", func(detail, pointer string) {
				p.ServiceErrors = append(p.ServiceErrors, ServiceError{Detail: detail, Pointer: pointer})
			})
		}
		if !ok {
			p.Extensions = addExtension(p.Extensions, m)
		}
	}
	return p
}

// addExtension decodes m as a generic JSON value into ext, which it
// allocates when nil.
func addExtension(ext map[string]any, m jsonscan.Member) map[string]any {
	var v any
	if json.Unmarshal(m.Value, &v) == nil {
		if ext == nil {
			ext = make(map[string]any)
		}
		ext[string(m.Name)] = v
	}
	return ext
}

// decodeItems reads an array of field-error objects, each with two string
// members (detail and pointer, or field and message) matched as
// encoding/json matches names, and calls add with each item that has
// either. null is an empty list. It returns false, so the raw value is kept
// in Extensions as well, when the value is not an array or an item could
// not be read (not an object, a member of the wrong type, neither member).
func decodeItems(raw []byte, first, second string, add func(first, second string)) bool {
	if string(raw) == "null" {
		return true // as encoding/json reads null into a slice: no items
	}
	if raw[0] != '[' {
		return false
	}
	all := true
	end := jsonscan.Elements(raw, 0, func(i int) int {
		if raw[i] != '{' {
			all = false
			return jsonscan.Value(raw, i, 0)
		}
		var a, b string
		readable := true
		end := jsonscan.Members(raw, i, func(name, v []byte) {
			switch {
			case jsonscan.Match(name, first):
				readable = decodeString(v, &a) && readable
			case jsonscan.Match(name, second):
				readable = decodeString(v, &b) && readable
			}
		})
		if a == "" && b == "" {
			readable = false
		} else {
			add(a, b)
		}
		all = all && readable
		return end
	})
	return all && end >= 0
}

// decodeString reads a JSON string into dst, as json.Unmarshal into a
// string would: null is accepted and leaves dst as it is, any other type is
// refused. raw is a valid JSON value, or nil for a missing member.
func decodeString(raw []byte, dst *string) bool {
	switch {
	case len(raw) == 0:
		return false
	case raw[0] == '"':
		*dst = jsonscan.Unquote(raw)
		return true
	}
	return string(raw) == "null"
}

// decodeStringOrNumber also accepts a number, kept as its literal text.
func decodeStringOrNumber(raw []byte, dst *string) bool {
	if decodeString(raw, dst) {
		return true
	}
	if len(raw) > 0 && (raw[0] == '-' || jsonscan.IsDigit(raw[0])) {
		*dst = string(raw)
		return true
	}
	return false
}

// decodeInt accepts a JSON number or a numeric string ("status": "400").
func decodeInt(raw []byte, dst *int) bool {
	if n, ok := smallUint(raw); ok {
		*dst = n
		return true
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil && f == float64(int(f)) {
		*dst = int(f)
		return true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			*dst = n
			return true
		}
	}
	return false
}

// smallUint reads a plain JSON integer of at most 15 digits, which a
// float64 holds exactly, so that the common "status": 422 need not go
// through encoding/json.
func smallUint(raw []byte) (int, bool) {
	if len(raw) == 0 || len(raw) > 15 {
		return 0, false
	}
	n := 0
	for _, c := range raw {
		if !jsonscan.IsDigit(c) {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
