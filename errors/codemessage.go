package errors

import (
	"strings"

	"github.com/memberplatform/memberplatform-go/internal/jsonscan"
)

// CodeMessage is the error format of the customer (member address)
// operation: a code, a message and, on validation errors, field errors.
// Members are decoded leniently, as for Problem.
type CodeMessage struct {
	Code       string
	Message    string
	Errors     []CodeMessageFieldError
	Extensions map[string]any // every other member, and any of the wrong type, as generic JSON
}

// CodeMessageFieldError is one item of a code/message body's errors member.
type CodeMessageFieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// FieldErrors returns the errors as FieldErrors; a field that is a JSON
// pointer or a query parameter's pointer ("?limit") is also kept in Pointer.
func (c *CodeMessage) FieldErrors() []FieldError {
	if c == nil {
		return nil
	}
	return fieldErrors(c.Errors, func(e CodeMessageFieldError) FieldError {
		fe := FieldError{Field: FieldFromPointer(e.Field), Message: e.Message}
		if strings.HasPrefix(e.Field, "/") || strings.HasPrefix(e.Field, "#/") || (len(e.Field) > 1 && e.Field[0] == '?') {
			fe.Pointer = e.Field
		}
		return fe
	})
}

func decodeCodeMessage(members []jsonscan.Member) *CodeMessage {
	c := &CodeMessage{}
	c.Extensions = decodeMembers(members, func(member int, raw []byte) bool {
		switch member {
		case mCode:
			return decodeStringOrNumber(raw, &c.Code)
		case mMessage:
			return decodeString(raw, &c.Message)
		case mErrors:
			c.Errors = nil
			return decodeItems(raw, "field", "message", func(field, message string) {
				c.Errors = append(c.Errors, CodeMessageFieldError{Field: field, Message: message})
			})
		}
		return false
	})
	return c
}
