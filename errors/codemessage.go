package errors

import "github.com/memberplatform/memberplatform-go/internal/jsonscan"

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

// decodeCodeMessage decodes members into a CodeMessage, never failing, as
// decodeProblem does.
func decodeCodeMessage(members []jsonscan.Member) *CodeMessage {
	c := &CodeMessage{}
	for _, m := range members {
		var ok bool
		switch raw := m.Value; memberOf(m.Name) {
		case mCode:
			ok = decodeStringOrNumber(raw, &c.Code)
		case mMessage:
			ok = decodeString(raw, &c.Message)
		case mErrors:
			c.Errors = nil
			ok = decodeItems(raw, "field", "message", func(field, message string) {
				c.Errors = append(c.Errors, CodeMessageFieldError{Field: field, Message: message})
			})
		}
		if !ok {
			c.Extensions = addExtension(c.Extensions, m)
		}
	}
	return c
}
