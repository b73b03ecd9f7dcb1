package sdktest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
)

// ProblemTypeBase prefixes the type URI of every problem the server
// answers, such as ProblemTypeBase + "not-found".
const ProblemTypeBase = "https://sdktest.memberplatform.invalid/problems/"

// kind describes one error response: its problem type suffix, status,
// title and the codes used by each error format.
type kind struct {
	slug               string
	status             int
	title              string
	numericServiceCode string // serviceCode of operations 1 and 2
	textServiceCode    string // serviceCode of operation 3 and the token endpoint
	codeMessageCode    string // code of operation 4
}

var kinds = []kind{
	{"bad-request", 400, "Bad Request", "40000001", "BAD_REQUEST", "VALIDATION_ERROR"},
	{"unauthorized", 401, "Unauthorized", "40100001", "UNAUTHORIZED", "UNAUTHENTICATED"},
	{"forbidden", 403, "Forbidden", "40300001", "FORBIDDEN", "FORBIDDEN"},
	{"not-found", 404, "Not Found", "40400001", "NOT_FOUND", "MEMBER_NOT_FOUND"},
	{"conflict", 409, "Conflict", "40900001", "CONFLICT", "CONFLICT"},
	{"unprocessable-entity", 422, "Unprocessable Entity", "42200001", "UNPROCESSABLE_ENTITY", "VALIDATION_ERROR"},
	{"rate-limited", 429, "Too Many Requests", "42900001", "RATE_LIMITED", "RATE_LIMITED"},
	{"internal-server-error", 500, "Internal Server Error", "50000001", "INTERNAL_SERVER_ERROR", "INTERNAL_ERROR"},
	{"not-implemented", 501, "Not Implemented", "50100001", "NOT_IMPLEMENTED", "NOT_IMPLEMENTED"},
	{"provider-not-configured", 503, "Provider Not Configured", "50300001", "PROVIDER_NOT_CONFIGURED", "PROVIDER_NOT_CONFIGURED"},
}

func kindFor(slug string) kind {
	for _, k := range kinds {
		if k.slug == slug {
			return k
		}
	}
	panic("sdktest: unknown error kind " + slug)
}

// kindForStatus returns the kind a scripted status answers with.
func kindForStatus(status int) kind {
	for _, k := range kinds {
		if k.status == status && k.slug != "provider-not-configured" {
			return k
		}
	}
	name := http.StatusText(status)
	if name == "" {
		name = "Error " + strconv.Itoa(status)
	}
	slug := strings.ToLower(strings.ReplaceAll(name, " ", "-"))
	return kind{slug, status, name, fmt.Sprintf("%03d00000", status%1000), strings.ToUpper(strings.ReplaceAll(name, " ", "_")), strings.ToUpper(strings.ReplaceAll(name, " ", "_"))}
}

// apiError is an error response before it is rendered in an operation's
// format.
type apiError struct {
	kind   kind
	detail string
	fields []fieldError
	header http.Header
}

// fieldError is one field-level error, rendered as a serviceErrors item
// {detail, pointer} or an errors item {field, message}.
type fieldError struct {
	pointer string // JSON pointer, "" for the whole body
	message string
	// field, when set, is the name written in the code/message format
	// instead of one derived from pointer: a Fault's field errors keep the
	// name the test gave.
	field string
}

func newError(slug, detail string, fields ...fieldError) *apiError {
	return &apiError{kind: kindFor(slug), detail: detail, fields: fields}
}

// formatFor returns the error format of op, requested at path: its
// declaration's, or for an endpoint added with HandleFunc (or an unknown
// route) the format of the operations declared in the area of path, the
// only hint the contract gives; the numeric problem format where none is.
func formatFor(op, path string) core.ErrorFormat {
	if d := declared(op); d != nil {
		return d.Errors
	}
	area := core.AreaOfPath(path)
	for _, d := range core.Operations() {
		if d.Area == area {
			return d.Errors
		}
	}
	return core.ProblemErrors
}

// render returns the content type and body of e in format f.
func (e *apiError) render(f core.ErrorFormat, path string) (string, []byte) {
	k := e.kind
	if f == core.CodeMessageErrors {
		doc := codeMessageWire{Code: k.codeMessageCode, Message: e.detail}
		if doc.Message == "" {
			doc.Message = k.title
		}
		if doc.Code == "VALIDATION_ERROR" {
			// Required on the validation error, even when empty.
			doc.Errors = []apierrors.CodeMessageFieldError{}
		}
		for _, fe := range e.fields {
			name := fe.field
			if name == "" {
				name = fieldName(fe.pointer)
			}
			doc.Errors = append(doc.Errors, apierrors.CodeMessageFieldError{Field: name, Message: fe.message})
		}
		b, _ := json.Marshal(doc)
		return codeMessageContentType, b
	}
	doc := problemWire{Type: ProblemTypeBase + k.slug, Title: k.title, Status: k.status, Detail: e.detail, Instance: path, ServiceCode: k.textServiceCode}
	if f == core.ProblemErrors {
		doc.ServiceCode = k.numericServiceCode
	}
	for _, fe := range e.fields {
		doc.ServiceErrors = append(doc.ServiceErrors, apierrors.ServiceError{Detail: fe.message, Pointer: fe.pointer})
	}
	b, _ := json.Marshal(doc)
	return problemContentType, b
}

// fieldName names the field a JSON pointer points at, as the SDK reads it
// ("/permissions/2" is "permissions[2]"), and "" as "body".
func fieldName(pointer string) string {
	if pointer == "" {
		return "body"
	}
	return apierrors.FieldFromPointer(pointer)
}
