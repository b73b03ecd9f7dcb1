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

func decodeCodeMessage(obj map[string]json.RawMessage) *CodeMessage {
	c := &CodeMessage{}
	for k, raw := range obj {
		ok := true
		switch k {
		case "code":
			ok = decodeStringOrNumber(raw, &c.Code)
		case "message":
			ok = decodeString(raw, &c.Message)
		case "errors":
			// Kept in Extensions too unless some field error was read
			// from it (or it is an empty list).
			var v any
			if json.Unmarshal(raw, &v) == nil {
				fes := fieldErrorsFromValue(v)
				for _, fe := range fes {
					field := fe.Field
					if fe.Pointer != "" {
						field = fe.Pointer
					}
					c.Errors = append(c.Errors, CodeMessageFieldError{Field: field, Message: fe.Message})
				}
				list, isList := v.([]any)
				ok = len(fes) > 0 || (isList && len(list) == 0)
			} else {
				ok = false
			}
		default:
			ok = false
		}
		if !ok {
			var v any
			if json.Unmarshal(raw, &v) == nil {
				if c.Extensions == nil {
					c.Extensions = make(map[string]any)
				}
				c.Extensions[k] = v
			}
		}
	}
	if c.Code == "" {
		// AWS JSON protocol errors {"__type": "ns#ThrottlingException",
		// "message": ...} and Anthropic/OpenAI-style {"type": ..., "message":
		// ...}: take the type as the code (it stays in Extensions too).
		var t string
		if decodeString(obj["__type"], &t) && t != "" {
			c.Code = t[strings.LastIndexByte(t, '#')+1:]
		} else if decodeString(obj["type"], &t) {
			c.Code = t
		}
	}
	return c
}
