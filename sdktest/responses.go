package sdktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/jarcoal/httpmock"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// Media types of the two error formats.
const (
	problemContentType     = "application/problem+json"
	codeMessageContentType = "application/json"
)

// problemWire is the problem format on the wire. The SDK's errors.Problem
// carries no JSON tags (it is decoded member by member, leniently), so
// marshalling it directly would write "Type", "ServiceCode" and so on.
type problemWire struct {
	Type          string                   `json:"type"`
	Title         string                   `json:"title"`
	Status        int                      `json:"status"`
	Detail        string                   `json:"detail,omitempty"`
	Instance      string                   `json:"instance,omitempty"`
	ServiceCode   string                   `json:"serviceCode"`
	ServiceMeta   map[string]any           `json:"serviceMeta,omitzero"`
	ServiceErrors []apierrors.ServiceError `json:"serviceErrors,omitzero"`
	extensions    map[string]any           // written after the standard members
}

// codeMessageWire is the code/message format on the wire (errors.CodeMessage
// has no JSON tags on Code and Message either). errors is omitted when nil
// and written, even empty, otherwise: the contract requires it on the
// validation error.
type codeMessageWire struct {
	Code       string                            `json:"code"`
	Message    string                            `json:"message"`
	Errors     []apierrors.CodeMessageFieldError `json:"errors,omitzero"`
	extensions map[string]any                    // written after the standard members
}

var (
	problemMembers     = []string{"type", "title", "status", "detail", "instance", "serviceCode", "serviceMeta", "serviceErrors"}
	codeMessageMembers = []string{"code", "message", "errors"}
)

func (p problemWire) MarshalJSON() ([]byte, error) {
	type plain problemWire
	return marshalWithExtensions(plain(p), p.extensions, problemMembers)
}

func (c codeMessageWire) MarshalJSON() ([]byte, error) {
	type plain codeMessageWire
	return marshalWithExtensions(plain(c), c.extensions, codeMessageMembers)
}

// marshalWithExtensions marshals doc and appends the members of ext, in
// sorted order, after its own. Members of ext named like a standard member
// are skipped: the standard member is what the format defines.
func marshalWithExtensions(doc any, ext map[string]any, standard []string) ([]byte, error) {
	b, err := json.Marshal(doc)
	if err != nil || len(ext) == 0 {
		return b, err
	}
	keys := make([]string, 0, len(ext))
	for k := range ext {
		if !slices.Contains(standard, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1]) // without the closing brace
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(ext[k])
		if err != nil {
			return nil, fmt.Errorf("extension member %s: %w", kb, err)
		}
		buf.WriteByte(',')
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// problemFor fills the members of p left at their zero value as the fake
// itself would for status, so the document is valid against the contract
// (type, title, status and an 8-digit serviceCode are required).
func problemFor(status int, p apierrors.Problem) problemWire {
	k := kindForStatus(status)
	w := problemWire{
		Type: p.Type, Title: p.Title, Status: p.Status, Detail: p.Detail, Instance: p.Instance,
		ServiceCode: p.ServiceCode, ServiceMeta: p.ServiceMeta, ServiceErrors: p.ServiceErrors,
		extensions: p.Extensions,
	}
	if w.Type == "" {
		w.Type = ProblemTypeBase + k.slug
	}
	if w.Title == "" {
		w.Title = k.title
	}
	if w.Status == 0 {
		w.Status = status
	}
	if w.ServiceCode == "" {
		w.ServiceCode = k.numericServiceCode
	}
	return w
}

// codeMessageFor fills the code and message of cm, when empty, as the fake
// itself would for status.
func codeMessageFor(status int, cm apierrors.CodeMessage) codeMessageWire {
	k := kindForStatus(status)
	w := codeMessageWire{Code: cm.Code, Message: cm.Message, Errors: cm.Errors, extensions: cm.Extensions}
	if w.Code == "" {
		w.Code = k.codeMessageCode
	}
	if w.Message == "" {
		w.Message = k.title
	}
	return w
}

// mustMarshal marshals an error document for the exported helpers, whose
// signatures have no error: only a ServiceMeta or Extensions value that
// encoding/json cannot encode (a channel, a function) fails, and that is a
// mistake in the test itself.
func mustMarshal(helper string, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("sdktest: " + helper + ": " + err.Error())
	}
	return b
}

// problemBody renders p for status; see ProblemResponse.
func problemBody(status int, p apierrors.Problem) []byte {
	return mustMarshal("ProblemResponse", problemFor(status, p))
}

// codeMessageBody renders cm for status; see CodeMessageResponse.
func codeMessageBody(status int, cm apierrors.CodeMessage) []byte {
	return mustMarshal("CodeMessageResponse", codeMessageFor(status, cm))
}

// ProblemResponse returns a response with status and p as a problem
// document (RFC 9457) in the contract's wire format, served as
// application/problem+json, for an httpmock responder or any RoundTripper
// stub. (errors.Problem has no JSON tags: marshalling it directly does not
// give the wire format.) Its body can be read more than once, as httpmock
// requires of a response it hands out repeatedly.
//
// The members are written in the order type, title, status, detail,
// instance, serviceCode, serviceMeta, serviceErrors[{detail, pointer}],
// then those of p.Extensions, sorted (one named like a standard member is
// skipped). Members left at their zero value are filled as the fake fills
// its own problems for status, so the document is valid against the
// contract: Type ProblemTypeBase+"not-found" (for 404) and so on, Title the
// status text, Status status, ServiceCode the 8-digit code of operations 1
// and 2 ("40400001"); set ServiceCode to a word such as "NOT_IMPLEMENTED"
// to mock the payment operation. Detail and Instance are omitted when
// empty, ServiceMeta and ServiceErrors when nil.
//
// It panics when ServiceMeta or Extensions holds a value encoding/json
// cannot encode, such as a channel: a mistake in the test itself.
func ProblemResponse(status int, p apierrors.Problem) *http.Response {
	return mockResponse(status, problemContentType, problemBody(status, p))
}

// ProblemResponder returns an httpmock responder answering every request
// with ProblemResponse(status, p). Add headers such as Retry-After with its
// HeaderSet method.
func ProblemResponder(status int, p apierrors.Problem) httpmock.Responder {
	return httpmock.ResponderFromResponse(ProblemResponse(status, p))
}

// CodeMessageResponse returns a response with status and cm as a
// code/message body in the contract's wire format (the format of the member
// address operation), served as application/json, for an httpmock responder
// or any RoundTripper stub. Its body can be read more than once.
//
// The members are written in the order code, message, errors[{field,
// message}], then those of cm.Extensions, sorted (one named like a standard
// member is skipped). An empty Code or Message is filled as the fake fills
// its own for status: Code "MEMBER_NOT_FOUND" for 404, "VALIDATION_ERROR"
// for 400 and so on, Message the status text. errors is omitted when
// cm.Errors is nil and written, even as [], otherwise: the contract
// requires it on the validation error.
//
// It panics when Extensions holds a value encoding/json cannot encode.
func CodeMessageResponse(status int, cm apierrors.CodeMessage) *http.Response {
	return mockResponse(status, codeMessageContentType, codeMessageBody(status, cm))
}

// CodeMessageResponder returns an httpmock responder answering every
// request with CodeMessageResponse(status, cm).
func CodeMessageResponder(status int, cm apierrors.CodeMessage) httpmock.Responder {
	return httpmock.ResponderFromResponse(CodeMessageResponse(status, cm))
}

// WriteProblem answers status with p as a problem document, written and
// filled in as ProblemResponse does, for handlers registered with
// Server.HandleFunc.
func WriteProblem(w http.ResponseWriter, status int, p apierrors.Problem) {
	writeBody(w, status, problemContentType, problemBody(status, p))
}

// WriteCodeMessage answers status with cm as a code/message body, written
// and filled in as CodeMessageResponse does, for handlers registered with
// Server.HandleFunc.
func WriteCodeMessage(w http.ResponseWriter, status int, cm apierrors.CodeMessage) {
	writeBody(w, status, codeMessageContentType, codeMessageBody(status, cm))
}

// mockResponse and writeBody serve an error body b as contentType: as an
// httpmock response, and through a ResponseWriter.
func mockResponse(status int, contentType string, b []byte) *http.Response {
	resp := httpmock.NewBytesResponse(status, b)
	resp.Header.Set("Content-Type", contentType)
	return resp
}

func writeBody(w http.ResponseWriter, status int, contentType string, b []byte) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// pointerFromField turns a readable field path into the JSON pointer
// problem documents carry: "email" → "/email", "permissions[2]" →
// "/permissions/2", "address.postcode" → "/address/postcode", "" → "" (the
// whole body). It is the inverse of errors.FieldFromPointer.
func pointerFromField(field string) string {
	if field == "" {
		return ""
	}
	field = strings.NewReplacer("[", ".", "]", "").Replace(field)
	var b strings.Builder
	for _, tok := range strings.Split(field, ".") {
		if tok == "" {
			continue
		}
		b.WriteString("/" + escapePointer(tok))
	}
	return b.String()
}
