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
// errors, violations, validation_messages) when present in Extensions.
func (p *Problem) FieldErrors() []FieldError {
	if p == nil {
		return nil
	}
	var out []FieldError
	for _, se := range p.ServiceErrors {
		out = append(out, FieldError{Field: FieldFromPointer(se.Pointer), Pointer: se.Pointer, Message: se.Detail})
	}
	for _, k := range []string{"invalid-params", "invalid_params", "errors", "violations", "validation_messages"} {
		if v, ok := p.Extensions[k]; ok {
			out = append(out, fieldErrorsFromValue(v)...)
		}
	}
	return out
}

// decodeProblem decodes the members of obj into a Problem, never failing.
func decodeProblem(obj map[string]json.RawMessage) *Problem {
	p := &Problem{}
	for k, raw := range obj {
		ok := true
		switch k {
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
			var v any
			if json.Unmarshal(raw, &v) == nil {
				if p.Extensions == nil {
					p.Extensions = make(map[string]any)
				}
				p.Extensions[k] = v
			}
		}
	}
	return p
}

func decodeServiceErrors(raw json.RawMessage, dst *[]ServiceError) bool {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return false
	}
	for _, it := range items {
		var obj map[string]json.RawMessage
		if json.Unmarshal(it, &obj) != nil {
			continue
		}
		var se ServiceError
		decodeString(obj["detail"], &se.Detail)
		decodeString(obj["pointer"], &se.Pointer)
		if se.Detail != "" || se.Pointer != "" {
			*dst = append(*dst, se)
		}
	}
	return true
}

func decodeString(raw json.RawMessage, dst *string) bool {
	return raw != nil && json.Unmarshal(raw, dst) == nil
}

func decodeStringOrNumber(raw json.RawMessage, dst *string) bool {
	if decodeString(raw, dst) {
		return true
	}
	var n json.Number
	if raw != nil && json.Unmarshal(raw, &n) == nil {
		*dst = n.String()
		return true
	}
	return false
}

// decodeInt accepts a JSON number or a numeric string ("status": "400").
func decodeInt(raw json.RawMessage, dst *int) bool {
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

// fieldErrorsFromValue reads the field-error shapes seen in the wild:
// arrays of objects naming the field (field, name, pointer, location,
// propertyPath, property, path) and the message (message, detail, reason,
// description); arrays of plain strings; and objects mapping a field to a
// message, a list of messages, or an object of messages.
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
				for _, k := range []string{"pointer", "field", "name", "propertyPath", "property", "location", "path", "param"} {
					if s, ok := item[k].(string); ok && s != "" {
						if k == "pointer" {
							fe.Pointer = s
						}
						fe.Field = FieldFromPointer(s)
						break
					}
				}
				for _, k := range []string{"message", "detail", "reason", "description", "title"} {
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
				out = append(out, FieldError{Field: FieldFromPointer(field), Message: msg})
			}
		}
	}
	return out
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
