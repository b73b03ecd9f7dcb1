package errors

import (
	"encoding/json"

	"github.com/memberplatform/memberplatform-go/internal/jsonscan"
)

// Problem is an RFC 9457 problem details document, the error format of the
// access-management and payment-method operations. A member that is missing
// or has the wrong type is left at its zero value (RFC 9457 §3.1 says to
// ignore it) and kept, undecoded, in Extensions.
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
