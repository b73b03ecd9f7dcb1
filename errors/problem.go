package errors

import (
	"encoding/json"

	"github.com/memberplatform/memberplatform-go/internal/jsonscan"
)

// Problem is an RFC 9457 problem details document, the error format of the
// access-management and payment-method operations. A member of the wrong
// type is left at its zero value (RFC 9457 §3.1) and kept in Extensions.
type Problem struct {
	Type     string // URI identifying the problem type; "" means about:blank
	Title    string
	Status   int // as the body says; Error.StatusCode (the HTTP status) is authoritative
	Detail   string
	Instance string
	// ServiceCode is the service error code: 8 digits for operations 1 and
	// 2, free-form for operation 3; a JSON number is kept as its text.
	ServiceCode   string
	ServiceMeta   map[string]any // the service's domain metadata
	ServiceErrors []ServiceError // the field-level errors
	Extensions    map[string]any // every other member, and any of the wrong type, as generic JSON
}

// ServiceError is one item of a problem's serviceErrors member.
type ServiceError struct {
	Detail  string `json:"detail"`
	Pointer string `json:"pointer"`
}

// FieldErrors returns the serviceErrors as FieldErrors.
func (p *Problem) FieldErrors() []FieldError {
	if p == nil {
		return nil
	}
	return fieldErrors(p.ServiceErrors, func(se ServiceError) FieldError {
		return FieldError{Field: FieldFromPointer(se.Pointer), Pointer: se.Pointer, Message: se.Detail}
	})
}

func decodeProblem(members []jsonscan.Member) *Problem {
	p := &Problem{}
	p.Extensions = decodeMembers(members, func(member int, raw []byte) bool {
		switch member {
		case mType, mTitle, mDetail, mInstance:
			return decodeString(raw, [...]*string{mType: &p.Type, mTitle: &p.Title, mDetail: &p.Detail, mInstance: &p.Instance}[member])
		case mStatus:
			return decodeInt(raw, &p.Status)
		case mServiceCode:
			return decodeStringOrNumber(raw, &p.ServiceCode)
		case mServiceMeta:
			return json.Unmarshal(raw, &p.ServiceMeta) == nil && p.ServiceMeta != nil
		case mServiceErrors:
			p.ServiceErrors = nil
			return decodeItems(raw, "detail", "pointer", func(detail, pointer string) {
				p.ServiceErrors = append(p.ServiceErrors, ServiceError{Detail: detail, Pointer: pointer})
			})
		}
		return false
	})
	return p
}
