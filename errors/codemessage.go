package errors

import (
	"encoding/json"
	"strings"
)

// CodeMessage is the error format of the customer (member address)
// operation: a code, a message and, on validation errors, field errors.
// Members are decoded leniently, as for Problem.
type CodeMessage struct {
	Code    string
	Message string
	Errors  []CodeMessageFieldError
	// Extensions holds every other member of the body (and any member whose
	// type was wrong), decoded as generic JSON values.
	Extensions map[string]any
}

// CodeMessageFieldError is one item of a code/message body's errors member.
type CodeMessageFieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// FieldErrors returns the body's field-level errors.
func (c *CodeMessage) FieldErrors() []FieldError {
	if c == nil {
		return nil
	}
	out := make([]FieldError, 0, len(c.Errors))
	for _, e := range c.Errors {
		out = append(out, newFieldError(e.Field, e.Message))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func decodeCodeMessage(obj *object) *CodeMessage {
	c := &CodeMessage{}
	for _, m := range obj.members {
		ok := true
		switch raw := m.raw; string(m.name) {
		case "code":
			ok = decodeStringOrNumber(raw, &c.Code)
		case "message":
			ok = decodeString(raw, &c.Message)
		case "errors":
			// Kept in Extensions too unless some field error was read
			// from it (or it is an empty list).
			ok = decodeCodeMessageErrors(raw, &c.Errors)
		default:
			ok = false
		}
		if !ok {
			c.Extensions = addExtension(c.Extensions, m)
		}
	}
	if c.Code == "" {
		// AWS JSON protocol errors {"__type": "ns#ThrottlingException",
		// "message": ...} and Anthropic/OpenAI-style {"type": ..., "message":
		// ...}: take the type as the code (it stays in Extensions too).
		var t string
		if decodeString(obj.get("__type"), &t) && t != "" {
			c.Code = t[strings.LastIndexByte(t, '#')+1:]
		} else if decodeString(obj.get("type"), &t) {
			c.Code = t
		}
	}
	return c
}

// decodeCodeMessageErrors appends the field errors of an errors member to
// dst, read as fieldErrorsFromValue reads them, and reports whether any was
// read or the member is an empty list. An array is read straight from the
// body (the common case, and the one that grows with the body); other
// shapes are decoded generically first.
func decodeCodeMessageErrors(raw []byte, dst *[]CodeMessageFieldError) bool {
	add := func(fe FieldError) {
		field := fe.Field
		if fe.Pointer != "" {
			field = fe.Pointer
		}
		*dst = append(*dst, CodeMessageFieldError{Field: field, Message: fe.Message})
	}
	if raw[0] != '[' {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return false
		}
		fes := fieldErrorsFromValue(v)
		for _, fe := range fes {
			add(fe)
		}
		return len(fes) > 0
	}
	items, read := 0, 0
	elements(raw, 0, func(i int) int {
		items++
		switch raw[i] {
		case '"':
			end := scanString(raw, i)
			add(FieldError{Message: unquote(raw[i:end])})
			read++
			return end
		case '{':
			fe, end := fieldErrorFromObject(raw, i)
			if fe.Field != "" || fe.Message != "" {
				add(fe)
				read++
			}
			return end
		}
		return scanValue(raw, i, 0)
	})
	return read > 0 || items == 0
}

// fieldErrorFromObject reads the object item at raw[i] of a field-error
// array as fieldErrorsFromValue reads a decoded one: the first of
// itemFieldKeys that names a field, and the first of itemMessageKeys that
// is a non-empty string. It returns the end of the item as well.
func fieldErrorFromObject(raw []byte, i int) (FieldError, int) {
	var vals [len(itemFieldKeys) + len(itemMessageKeys)][]byte
	end := members(raw, i, func(name, v []byte) {
		for j, k := range itemFieldKeys {
			if string(name) == k {
				vals[j] = v
				return
			}
		}
		for j, k := range itemMessageKeys {
			if string(name) == k {
				vals[len(itemFieldKeys)+j] = v
				return
			}
		}
	})
	fe := FieldError{}
	for _, v := range vals[:len(itemFieldKeys)] {
		if f := fieldNameOfRaw(v); f != "" {
			fe = newFieldError(f, "")
			break
		}
	}
	for _, v := range vals[len(itemFieldKeys):] {
		if len(v) > 0 && v[0] == '"' {
			if s := unquote(v); s != "" {
				fe.Message = s
				break
			}
		}
	}
	return fe, end
}

// fieldNameOfRaw is fieldName for a JSON value not yet decoded.
func fieldNameOfRaw(raw []byte) string {
	switch {
	case len(raw) == 0:
		return ""
	case raw[0] == '"':
		return unquote(raw)
	case raw[0] == '[':
		var v any
		if json.Unmarshal(raw, &v) == nil {
			return fieldName(v)
		}
	}
	return ""
}
