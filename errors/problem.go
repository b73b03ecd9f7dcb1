package errors

import (
	"encoding/json"
	"strconv"
	"strings"
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

// FieldErrors returns the problem's field-level errors: serviceErrors, plus
// the common shapes other services use for the same thing (invalid-params,
// errors, violations, validation_messages, a detail that is a list, ACME
// subproblems) when present in Extensions.
func (p *Problem) FieldErrors() []FieldError {
	if p == nil {
		return nil
	}
	var out []FieldError
	for _, se := range p.ServiceErrors {
		out = append(out, FieldError{Field: FieldFromPointer(se.Pointer), Pointer: se.Pointer, Message: se.Detail})
	}
	for _, k := range []string{"invalid-params", "invalid_params", "errors", "violations", "validation_messages", "detail", "subproblems"} {
		if v, ok := p.Extensions[k]; ok {
			out = append(out, fieldErrorsFromValue(v)...)
		}
	}
	return out
}

// decodeProblem decodes the members of obj into a Problem, never failing.
func decodeProblem(obj *object) *Problem {
	p := &Problem{}
	for _, m := range obj.members {
		ok := true
		switch raw := m.raw; string(m.name) {
		case "type":
			ok = decodeString(raw, &p.Type)
		case "title":
			ok = decodeString(raw, &p.Title)
		case "detail":
			ok = decodeString(raw, &p.Detail)
		case "instance":
			ok = decodeString(raw, &p.Instance)
		case "status":
			ok = decodeInt(raw, &p.Status)
		case "serviceCode":
			ok = decodeStringOrNumber(raw, &p.ServiceCode)
		case "serviceMeta":
			ok = json.Unmarshal(raw, &p.ServiceMeta) == nil && p.ServiceMeta != nil
		case "serviceErrors":
			ok = decodeServiceErrors(raw, &p.ServiceErrors)
		default:
			ok = false
		}
		if !ok {
			p.Extensions = addExtension(p.Extensions, m)
		}
	}
	return p
}

// addExtension decodes m as a generic JSON value into ext, which it
// allocates when nil.
func addExtension(ext map[string]any, m member) map[string]any {
	var v any
	if json.Unmarshal(m.raw, &v) == nil {
		if ext == nil {
			ext = make(map[string]any)
		}
		ext[string(m.name)] = v
	}
	return ext
}

// decodeServiceErrors reads the items of serviceErrors, accepting field and
// message in place of pointer and detail (names match exactly, in case as
// well). It returns false, so the raw value is kept in Extensions as well,
// when the member is not an array or any item could not be read.
func decodeServiceErrors(raw []byte, dst *[]ServiceError) bool {
	if string(raw) == "null" {
		return true // as encoding/json reads null into a slice: no items
	}
	if len(raw) == 0 || raw[0] != '[' {
		return false
	}
	all := true
	end := elements(raw, 0, func(i int) int {
		if raw[i] != '{' {
			all = false
			return scanValue(raw, i, 0)
		}
		var detail, message, pointer, field []byte
		end := members(raw, i, func(name, v []byte) {
			switch string(name) {
			case "detail":
				detail = v
			case "message":
				message = v
			case "pointer":
				pointer = v
			case "field":
				field = v
			}
		})
		var se ServiceError
		_ = decodeString(detail, &se.Detail) || decodeString(message, &se.Detail)
		_ = decodeString(pointer, &se.Pointer) || decodeString(field, &se.Pointer)
		if se.Detail == "" && se.Pointer == "" {
			all = false
		} else {
			*dst = append(*dst, se)
		}
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
		*dst = unquote(raw)
		return true
	}
	return string(raw) == "null"
}

// decodeStringOrNumber also accepts a number, kept as its literal text.
func decodeStringOrNumber(raw []byte, dst *string) bool {
	if decodeString(raw, dst) {
		return true
	}
	if len(raw) > 0 && (raw[0] == '-' || isDigit(raw[0])) {
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
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// Members of a field-error item naming the field, and the message, in order
// of preference.
var (
	itemFieldKeys   = [...]string{"pointer", "field", "name", "propertyPath", "property", "location", "path", "param", "loc", "fields"}
	itemMessageKeys = [...]string{"message", "detail", "reason", "description", "msg", "title", "error", "code"}
)

// fieldErrorsFromValue reads the field-error shapes seen in the wild:
// arrays of objects naming the field (pointer, field, name, propertyPath,
// location, FastAPI's loc path array, Salesforce's fields list...) and the
// message (message, detail, reason, msg..., else GitHub's code); arrays of
// plain strings; and objects mapping a field to a message, a list of
// messages, or an object of messages (ASP.NET Core, Laminas).
func fieldErrorsFromValue(v any) []FieldError {
	var out []FieldError
	switch t := v.(type) {
	case []any:
		for _, it := range t {
			switch item := it.(type) {
			case string:
				out = append(out, FieldError{Message: item})
			case map[string]any:
				fe := FieldError{}
				for _, k := range itemFieldKeys {
					if f := fieldName(item[k]); f != "" {
						fe = newFieldError(f, "")
						break
					}
				}
				for _, k := range itemMessageKeys {
					if s, ok := item[k].(string); ok && s != "" {
						fe.Message = s
						break
					}
				}
				if fe.Field != "" || fe.Message != "" {
					out = append(out, fe)
				}
			}
		}
	case map[string]any:
		for _, field := range sortedKeys(t) {
			for _, msg := range messagesOf(t[field]) {
				out = append(out, newFieldError(field, msg))
			}
		}
	}
	return out
}

// fieldName reads a field named by a string, or by a path array such as
// FastAPI's ["body", "items", 0] ("body.items[0]"), or a list of field
// names such as Salesforce's ["Name", "Email"] ("Name, Email").
func fieldName(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		var b strings.Builder
		allStrings := true
		for _, el := range t {
			if _, ok := el.(string); !ok {
				allStrings = false
			}
		}
		for i, el := range t {
			switch x := el.(type) {
			case string:
				if i > 0 {
					if allStrings && len(t) > 1 && !looksLikeLocation(t) {
						b.WriteString(", ")
					} else {
						b.WriteByte('.')
					}
				}
				b.WriteString(x)
			case float64:
				b.WriteString("[" + strconv.FormatFloat(x, 'f', -1, 64) + "]")
			}
		}
		return b.String()
	}
	return ""
}

// looksLikeLocation reports whether a list of names is a path whose first
// element is a request location (FastAPI, Pydantic) rather than a list of
// fields.
func looksLikeLocation(t []any) bool {
	switch t[0] {
	case "body", "query", "path", "header", "cookie":
		return true
	}
	return false
}

func messagesOf(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, it := range t {
			out = append(out, messagesOf(it)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, k := range sortedKeys(t) {
			out = append(out, messagesOf(t[k])...)
		}
		return out
	}
	return nil
}
