package errors

import (
	"bytes"
	stderrors "errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixture is one error body of the SDK's own corpus under testdata/, modelled
// on the shapes of the real-world corpus in the module root's
// testdata/error-bodies and on the contract, or generated (the 1 MiB+ bodies,
// to keep the repository small).
type fixture struct {
	file   string        // under testdata/
	gen    func() []byte // instead of file
	ct     string
	status int
	header map[string]string

	kind     error   // Kind()
	is       []error // further kinds errors.Is must match
	isNot    []error // kinds errors.Is must not match
	format   string  // "problem", "codemessage" or "" (neither)
	title    string  // Title(); "" is not checked, "-" must be empty
	detail   string  // Detail(); likewise
	fields   []FieldError
	errorHas []string
	check    func(t *testing.T, e *Error)
}

const (
	fmtProblem = "problem"
	fmtCM      = "codemessage"
)

// bigJSON returns a JSON object of at least 1 MiB: head, item repeated as
// the elements of an array, then tail (which falls beyond the snippet).
func bigJSON(head, item, tail string) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	for i := 0; b.Len() < 1<<20+100; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item)
	}
	b.WriteString(tail)
	return b.Bytes()
}

const stackFrame = `"at com.example.Service.method(Service.java:42)"`

var problemFixtures = []fixture{
	{file: "problem/01-contract-bad-request.json", ct: "application/problem+json", status: 400,
		kind: ErrBadRequest, format: fmtProblem, title: "BAD_REQUEST (40000001)", detail: "The request body is invalid.",
		fields:   []FieldError{{Field: "email", Pointer: "/email", Message: "must be an email address"}},
		errorHas: []string{": 400 Bad Request: BAD_REQUEST (40000001): The request body is invalid. [email: must be an email address]"},
		check: func(t *testing.T, e *Error) {
			p := e.Problem
			eq(t, "serviceCode", p.ServiceCode, "40000001")
			eq(t, "status", p.Status, 400)
			eq(t, "instance", p.Instance, "/auth/access-management/users/user_01")
			eq(t, "serviceMeta", p.ServiceMeta, map[string]any{"provider": "workos", "attempt": float64(2), "nested": map[string]any{"ids": []any{float64(1), float64(2)}}})
			eq(t, "serviceErrors", p.ServiceErrors, []ServiceError{{Detail: "must be an email address", Pointer: "/email"}})
			eq(t, "extensions", len(p.Extensions), 0)
		}},
	{file: "problem/02-contract-unauthorized.json", ct: "application/problem+json", status: 401,
		kind: ErrUnauthorized, format: fmtProblem, title: "UNAUTHORIZED (40100001)", detail: "The service JWT has expired."},
	{file: "problem/03-contract-forbidden.json", ct: "application/problem+json", status: 403,
		kind: ErrForbidden, format: fmtProblem, title: "FORBIDDEN (40300001)", detail: "The caller may not manage this organization.",
		check: func(t *testing.T, e *Error) {
			eq(t, "serviceMeta", e.Problem.ServiceMeta, map[string]any{"organizationId": "org_01"})
		}},
	{file: "problem/04-contract-not-found.json", ct: "application/problem+json", status: 404,
		kind: ErrNotFound, isNot: []error{ErrForbidden, ErrRateLimited}, format: fmtProblem, title: "NOT_FOUND (40400001)", detail: "No provider user user_404."},
	{file: "problem/05-contract-conflict.json", ct: "application/problem+json", status: 409,
		kind: ErrConflict, format: fmtProblem, title: "CONFLICT (40900001)",
		fields: []FieldError{{Field: "email", Pointer: "/email", Message: "already in use"}}},
	{file: "problem/06-contract-unprocessable-pointers.json", ct: "application/problem+json", status: 422,
		kind: ErrUnprocessableEntity, format: fmtProblem, title: "UNPROCESSABLE_ENTITY (42200001)", detail: "3 fields are invalid.",
		fields: []FieldError{
			{Field: "permissions[2]", Pointer: "/permissions/2", Message: "unknown permission"},
			{Field: "address.postcode", Pointer: "/address/postcode", Message: "must be 4 digits"},
			{Field: "a/b~c", Pointer: "/a~1b~0c", Message: "escaped name"},
		},
		errorHas: []string{"[permissions[2]: unknown permission; address.postcode: must be 4 digits; a/b~c: escaped name]"}},
	{file: "problem/07-contract-rate-limited-seconds.json", ct: "application/problem+json", status: 429, header: map[string]string{"Retry-After": "7", "X-Amzn-RequestId": "amzn-7"},
		kind: ErrRateLimited, format: fmtProblem, title: "Provider rate limited (42900001)",
		errorHas: []string{"(retry after 7s)", "(request id amzn-7)"},
		check: func(t *testing.T, e *Error) {
			eq(t, "RetryAfter", e.RetryAfter, 7*time.Second)
			eq(t, "RequestID", e.RequestID, "amzn-7")
			eq(t, "Temporary", e.Temporary(), true)
		}},
	{file: "problem/08-contract-rate-limited-date.json", ct: "application/problem+json", status: 429,
		header: map[string]string{"Retry-After": "+90s", "Traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		kind:   ErrRateLimited, format: fmtProblem, title: "Too Many Requests (42900002)",
		check: func(t *testing.T, e *Error) {
			if e.RetryAfter < 80*time.Second || e.RetryAfter > 91*time.Second {
				t.Errorf("RetryAfter from an HTTP date = %v, want about 90s", e.RetryAfter)
			}
			eq(t, "RequestID (traceparent)", e.RequestID, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		}},
	{file: "problem/09-contract-internal.json", ct: "application/problem+json", status: 500,
		kind: ErrInternal, format: fmtProblem, title: "INTERNAL_SERVER_ERROR (50000001)", detail: "Unexpected provider response.",
		check: func(t *testing.T, e *Error) {
			eq(t, "serviceMeta", e.Problem.ServiceMeta["upstreamStatus"], any(float64(502)))
		}},
	{file: "problem/10-contract-provider-not-configured.json", ct: "application/problem+json", status: 503,
		kind: ErrProviderNotConfigured, is: []error{ErrServiceUnavailable}, isNot: []error{ErrRateLimited, ErrInternal}, format: fmtProblem,
		title: "Provider Not Configured (50300001)",
		check: func(t *testing.T, e *Error) { eq(t, "Temporary", e.Temporary(), false) }},
	{file: "problem/11-provider-not-configured-detail-only.json", ct: "application/problem+json", status: 503,
		kind: ErrProviderNotConfigured, is: []error{ErrServiceUnavailable}, format: fmtProblem, title: "Service Unavailable (50300002)",
		detail: "The access-management provider is not configured for this environment",
		check: func(t *testing.T, e *Error) {
			eq(t, "type", e.Problem.Type, "about:blank")
			// The same body on a 400 is not taken for the contract's
			// response: only a type, title or code counts at any status.
			e2 := Decode(400, http.Header{"Content-Type": {"application/problem+json"}}, e.Body)
			eq(t, "Kind at 400", e2.Kind(), ErrBadRequest)
			eq(t, "Is(ProviderNotConfigured) at 400", stderrors.Is(e2, ErrProviderNotConfigured), false)
		}},
	{file: "problem/12-payments-not-implemented.json", ct: "application/problem+json", status: 501,
		kind: ErrNotImplemented, format: fmtProblem, title: "Not implemented (PAYMENTS_NOT_IMPLEMENTED)",
		check: func(t *testing.T, e *Error) { eq(t, "serviceCode", e.Problem.ServiceCode, "PAYMENTS_NOT_IMPLEMENTED") }},
	{file: "problem/13-service-code-number.json", ct: "application/problem+json", status: 400,
		kind: ErrBadRequest, format: fmtProblem, title: "BAD_REQUEST (40000001)",
		check: func(t *testing.T, e *Error) {
			eq(t, "serviceCode", e.Problem.ServiceCode, "40000001")
			eq(t, "extensions", len(e.Problem.Extensions), 0)
		}},
	{file: "problem/14-status-as-string.json", ct: "application/problem+json", status: 404,
		kind: ErrNotFound, format: fmtProblem, title: "NOT_FOUND (40400002)",
		check: func(t *testing.T, e *Error) { eq(t, "status", e.Problem.Status, 404) }},
	{file: "problem/15-body-status-disagrees.json", ct: "application/problem+json", status: 500,
		kind: ErrInternal, format: fmtProblem, title: "All good? (50000002)",
		errorHas: []string{": 500 Internal Server Error: "},
		check: func(t *testing.T, e *Error) {
			eq(t, "body status", e.Problem.Status, 200)
			eq(t, "StatusCode", e.StatusCode, 500)
		}},
	{file: "problem/16-missing-type.json", ct: "application/json", status: 409,
		kind: ErrConflict, format: fmtProblem, title: "Conflict", detail: "Role org-admin was modified concurrently.",
		errorHas: []string{": 409 Conflict: Role org-admin was modified concurrently."}},
	{file: "problem/17-wrong-types.json", ct: "application/problem+json", status: 400,
		kind: ErrBadRequest, format: fmtProblem,
		check: func(t *testing.T, e *Error) {
			p := e.Problem
			if p.Type != "" || p.Title != "" || p.Status != 0 || p.Detail != "" || p.Instance != "" || p.ServiceCode != "" || p.ServiceMeta != nil || p.ServiceErrors != nil {
				t.Errorf("wrong-typed members decoded: %+v", p)
			}
			for _, k := range []string{"type", "title", "status", "detail", "instance", "serviceCode", "serviceMeta", "serviceErrors"} {
				if _, ok := p.Extensions[k]; !ok {
					t.Errorf("wrong-typed member %q not kept in Extensions", k)
				}
			}
		}},
	{file: "problem/18-extension-members.json", ct: "application/problem+json", status: 403,
		kind: ErrForbidden, format: fmtProblem, title: "FORBIDDEN (40300002)",
		check: func(t *testing.T, e *Error) {
			x := e.Problem.Extensions
			eq(t, "traceId", x["traceId"], any("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
			eq(t, "balance", x["balance"], any(float64(30)))
			eq(t, "accounts", x["accounts"], any([]any{"/account/1", "/account/2"}))
			eq(t, "meta", x["meta"], any(map[string]any{"deep": map[string]any{"deeper": map[string]any{"deepest": []any{map[string]any{"x": nil}}}}}))
		}},
	{file: "problem/24-service-errors-junk-items.json", ct: "application/problem+json", status: 400,
		kind: ErrBadRequest, format: fmtProblem,
		fields: []FieldError{{Field: "lastName", Pointer: "/lastName", Message: "is required"}},
		check: func(t *testing.T, e *Error) {
			if _, ok := e.Problem.Extensions["serviceErrors"]; !ok {
				t.Error("serviceErrors with unreadable items not kept raw in Extensions")
			}
		}},
	{file: "problem/25-about-blank-status-only.json", ct: "application/problem+json", status: 409,
		kind: ErrConflict, format: fmtProblem,
		check: func(t *testing.T, e *Error) {
			eq(t, "Error()", e.Error(), "memberplatform: POST /customer/members/m1/address: 409 Conflict")
		}},
	{file: "problem/26-truncated.json", ct: "application/problem+json", status: 409,
		kind: ErrConflict, format: fmtProblem, title: "CONFLICT (40900002)", detail: "-",
		check: func(t *testing.T, e *Error) { eq(t, "detail (cut)", e.Problem.Detail, "") }},
	{file: "problem/27-json-syntax-error-midway.json", ct: "application/problem+json", status: 500,
		kind: ErrInternal, format: fmtProblem, title: "INTERNAL_SERVER_ERROR", detail: "-"},
	{file: "problem/29-bom-charset.json", ct: `application/problem+json; charset="utf-8"`, status: 403,
		kind: ErrForbidden, format: fmtProblem, title: "FORBIDDEN (40300003)", detail: "sent with a byte order mark"},
	{file: "problem/30-control-characters.json", ct: "application/problem+json", status: 400,
		kind: ErrBadRequest, format: fmtProblem,
		errorHas: []string{"BAD_REQUEST X-Injected: yes (40000004): line one line two [31m red desrever end"}},
	{file: "problem/31-duplicate-keys.json", ct: "application/problem+json", status: 401,
		kind: ErrUnauthorized, is: []error{ErrForbidden}, format: fmtProblem, title: "FORBIDDEN", detail: "last duplicate wins",
		check: func(t *testing.T, e *Error) { eq(t, "status", e.Problem.Status, 401) }},
	{file: "problem/32-trailing-garbage.json", ct: "application/problem+json", status: 404,
		kind: ErrNotFound, format: fmtProblem, title: "NOT_FOUND", detail: "followed by garbage"},
	{file: "problem/33-camelcase-urn-type.json", ct: "application/problem+json", status: 503,
		kind: ErrProviderNotConfigured, is: []error{ErrServiceUnavailable}, format: fmtProblem, title: "urn:memberplatform:problem:ProviderNotConfigured", detail: "no provider"},
	{file: "problem/35-rate-limited-on-503.json", ct: "application/problem+json", status: 503,
		kind: ErrRateLimited, is: []error{ErrServiceUnavailable}, isNot: []error{ErrProviderNotConfigured}, format: fmtProblem,
		detail: "The configured access provider rate limited the request"},
	{gen: func() []byte {
		return bigJSON(`{"type":"https://api.memberplatform.example/problems/internal-server-error","title":"INTERNAL_SERVER_ERROR","status":500,"detail":"huge stack trace follows","serviceCode":"50000009","stacktrace":[`, stackFrame, `],"instance":"/never/read"}`)
	}, ct: "application/problem+json", status: 500,
		kind: ErrInternal, format: fmtProblem, title: "INTERNAL_SERVER_ERROR (50000009)", detail: "huge stack trace follows",
		check: func(t *testing.T, e *Error) {
			eq(t, "truncated", e.BodyTruncated, true)
			eq(t, "snippet length", len(e.Body), MaxBodySnippet)
			eq(t, "instance (beyond the snippet)", e.Problem.Instance, "")
		}},
	{gen: func() []byte {
		return bigJSON(`{"type":"https://api.memberplatform.example/problems/forbidden","stacktrace":[`, stackFrame, `],"title":"FORBIDDEN","detail":"late"}`)
	}, ct: "application/problem+json", status: 403,
		kind: ErrForbidden, format: fmtProblem, title: "https://api.memberplatform.example/problems/forbidden",
		check: func(t *testing.T, e *Error) {
			eq(t, "truncated", e.BodyTruncated, true)
			eq(t, "title (beyond the snippet)", e.Problem.Title, "")
		}},
}

var codeMessageFixtures = []fixture{
	{file: "codemessage/01-validation-400.json", ct: "application/json", status: 400,
		kind: ErrBadRequest, is: []error{ErrUnprocessableEntity}, format: fmtCM, title: "VALIDATION_ERROR", detail: "Request validation failed",
		fields:   []FieldError{{Field: "postcode", Message: "must be 4 digits"}, {Field: "addressLineOne", Message: "is required"}},
		errorHas: []string{": 400 Bad Request: VALIDATION_ERROR: Request validation failed [postcode: must be 4 digits; addressLineOne: is required]"},
		check: func(t *testing.T, e *Error) {
			eq(t, "errors", e.CodeMessage.Errors, []CodeMessageFieldError{{Field: "postcode", Message: "must be 4 digits"}, {Field: "addressLineOne", Message: "is required"}})
		}},
	{file: "codemessage/02-validation-422.json", ct: "application/json", status: 422,
		kind: ErrUnprocessableEntity, format: fmtCM, title: "VALIDATION_FAILED", detail: "Address is invalid",
		fields: []FieldError{{Field: "country", Message: "must be an ISO 3166 code"}}},
	{file: "codemessage/03-unauthenticated.json", ct: "application/json", status: 401,
		kind: ErrUnauthorized, format: fmtCM, title: "UNAUTHENTICATED", detail: "Missing or invalid auth context"},
	{file: "codemessage/04-forbidden.json", ct: "application/json", status: 403,
		kind: ErrForbidden, format: fmtCM, title: "FORBIDDEN", detail: "The caller lacks the required permission"},
	{file: "codemessage/05-member-not-found.json", ct: "application/json; charset=utf-8", status: 404,
		kind: ErrNotFound, format: fmtCM, title: "MEMBER_NOT_FOUND", detail: "Member 8f3b2c1a-0000-4000-8000-000000000001 not found"},
	{file: "codemessage/06-internal-database.json", ct: "application/json", status: 500,
		kind: ErrInternal, format: fmtCM, title: "INTERNAL_ERROR", detail: "database failure: connection pool exhausted",
		check: func(t *testing.T, e *Error) { eq(t, "Temporary", e.Temporary(), true) }},
	{file: "codemessage/07-numeric-code.json", ct: "application/json", status: 404,
		kind: ErrNotFound, format: fmtCM, title: "404", detail: "Member not found"},
	{file: "codemessage/08-lowercase-code.json", ct: "application/json", status: 404,
		kind: ErrNotFound, format: fmtCM, title: "member_not_found", detail: "no such member"},
	{file: "codemessage/09-unknown-status-named-code.json", ct: "application/json", status: 418,
		kind: ErrNotFound, format: fmtCM, title: "MEMBER_NOT_FOUND"},
	{file: "codemessage/10-pointer-fields.json", ct: "application/json", status: 400,
		kind: ErrBadRequest, format: fmtCM,
		fields: []FieldError{{Field: "address.postcode", Pointer: "/address/postcode", Message: "must be 4 digits"}, {Field: "lines[1]", Pointer: "/lines/1", Message: "too long"}}},
	{file: "codemessage/13-errors-wrong-types.json", ct: "application/json", status: 400,
		kind: ErrBadRequest, format: fmtCM,
		fields: []FieldError{{Field: "suburb"}, {Field: "state", Message: "unknown state"}}},
	{file: "codemessage/14-api-gateway-message-only.json", ct: "application/json", status: 403,
		kind: ErrForbidden, format: fmtCM, title: "-", detail: "Forbidden",
		check: func(t *testing.T, e *Error) {
			eq(t, "Error()", e.Error(), "memberplatform: POST /customer/members/m1/address: 403 Forbidden")
		}},
	{file: "codemessage/15-api-gateway-internal.json", ct: "application/json", status: 502,
		kind: ErrServiceUnavailable, format: fmtCM, detail: "Internal server error"},
	{file: "codemessage/16-api-gateway-capital-message.json", ct: "application/json", status: 403,
		kind: ErrForbidden, format: fmtCM, detail: "User: anonymous is not authorized to perform: execute-api:Invoke on resource: arn:aws:execute-api:ap-southeast-2:123456789012:abc/prod/POST/customer"},
	{file: "codemessage/19-extra-members.json", ct: "application/json", status: 404,
		kind: ErrNotFound, format: fmtCM, title: "MEMBER_NOT_FOUND",
		check: func(t *testing.T, e *Error) {
			eq(t, "requestId", e.CodeMessage.Extensions["requestId"], any("req-123"))
			eq(t, "details", e.CodeMessage.Extensions["details"], any(map[string]any{"memberId": "x"}))
			eq(t, "extension count", len(e.CodeMessage.Extensions), 3)
		}},
	{gen: func() []byte {
		return bigJSON(`{"code":"INTERNAL_ERROR","message":"database failure","stacktrace":[`, stackFrame, `],"errors":[{"field":"x","message":"never read"}]}`)
	}, ct: "application/json", status: 500,
		kind: ErrInternal, format: fmtCM, title: "INTERNAL_ERROR", detail: "database failure",
		check: func(t *testing.T, e *Error) {
			eq(t, "truncated", e.BodyTruncated, true)
			eq(t, "fields beyond the snippet", len(e.FieldErrors()), 0)
		}},
	{gen: func() []byte {
		return bigJSON(`{"code":"VALIDATION_ERROR","message":"too many errors","errors":[`, `{"field":"lines[0]","message":"is invalid"}`, `]}`)
	}, ct: "application/json", status: 422,
		kind: ErrUnprocessableEntity, format: fmtCM, title: "VALIDATION_ERROR", detail: "too many errors",
		check: func(t *testing.T, e *Error) { eq(t, "truncated", e.BodyTruncated, true) }},
	{file: "codemessage/22-truncated.json", ct: "application/json", status: 404,
		kind: ErrNotFound, format: fmtCM, title: "MEMBER_NOT_FOUND", detail: "-"},
	{file: "codemessage/23-served-as-text-plain.json", ct: "text/plain; charset=utf-8", status: 403,
		kind: ErrForbidden, format: fmtCM, title: "FORBIDDEN", detail: "served as text/plain"},
	{file: "codemessage/24-served-as-problem-json.json", ct: "application/problem+json", status: 401,
		kind: ErrUnauthorized, format: fmtCM, title: "UNAUTHENTICATED", detail: "mislabelled as problem+json"},
	{file: "codemessage/25-multiline-message.json", ct: "application/json", status: 500,
		kind: ErrInternal, format: fmtCM, title: "INTERNAL_ERROR",
		errorHas: []string{"INTERNAL_ERROR: first line second line third"},
		check: func(t *testing.T, e *Error) {
			eq(t, "raw message", e.CodeMessage.Message, "first line\n\tsecond line\r\n third")
		}},
	{file: "codemessage/26-empty-errors-list.json", ct: "application/json", status: 400,
		kind: ErrBadRequest, is: []error{ErrUnprocessableEntity}, format: fmtCM, title: "VALIDATION_ERROR",
		check: func(t *testing.T, e *Error) { eq(t, "extensions", len(e.CodeMessage.Extensions), 0) }},
	{file: "codemessage/28-null-members.json", ct: "application/json", status: 500,
		kind: ErrInternal, format: fmtCM,
		check: func(t *testing.T, e *Error) {
			eq(t, "Error()", e.Error(), "memberplatform: POST /customer/members/m1/address: 500 Internal Server Error")
		}},
	{file: "codemessage/29-errors-not-a-list.json", ct: "application/json", status: 400,
		kind: ErrBadRequest, format: fmtCM, title: "VALIDATION_ERROR",
		check: func(t *testing.T, e *Error) {
			eq(t, "errors kept", e.CodeMessage.Extensions["errors"], any("postcode"))
		}},
}

var otherFixtures = []fixture{
	{file: "other/01-empty.txt", status: 502, kind: ErrServiceUnavailable, title: "-", detail: "-",
		check: func(t *testing.T, e *Error) {
			eq(t, "Error()", e.Error(), "memberplatform: POST /customer/members/m1/address: 502 Bad Gateway")
		}},
	{file: "other/02-nginx-502.html", ct: "text/html", status: 502, kind: ErrServiceUnavailable, title: "-", detail: "-"},
	{file: "other/04-plain-text-lines.txt", ct: "text/plain", status: 503, kind: ErrServiceUnavailable, title: "-", detail: "-"},
	{file: "other/07-binary.bin", ct: "application/octet-stream", status: 500, kind: ErrInternal, title: "-", detail: "-",
		check: func(t *testing.T, e *Error) {
			eq(t, "Error()", e.Error(), "memberplatform: POST /customer/members/m1/address: 500 Internal Server Error")
		}},
	{file: "other/11-empty-object.json", ct: "application/json", status: 404, kind: ErrNotFound, title: "-", detail: "-"},
	{file: "other/12-whitespace.txt", ct: "text/plain", status: 500, kind: ErrInternal, title: "-", detail: "-"},
	{file: "other/13-invalid-json.json", ct: "application/json", status: 400, kind: ErrBadRequest, title: "-", detail: "-",
		check: func(t *testing.T, e *Error) { eq(t, "body kept", string(e.Body), "{oops this is not json") }},
	{file: "other/15-text-control-chars.txt", ct: "text/plain", status: 502, kind: ErrServiceUnavailable, title: "-", detail: "-"},
	{file: "other/17-json-number.json", ct: "application/json", status: 503, kind: ErrServiceUnavailable, title: "-", detail: "-"},
	{gen: func() []byte {
		return append([]byte("<!DOCTYPE html><html><head><title>Request Entity Too Large</title></head><body>"), bytes.Repeat([]byte("<p>padding</p>\n"), 80000)...)
	}, ct: "text/html", status: 413, kind: nil, detail: "-",
		check: func(t *testing.T, e *Error) { eq(t, "truncated", e.BodyTruncated, true) }},
	{file: "other/02-nginx-502.html", ct: "text/plain", status: 429, header: map[string]string{"Retry-After": "120", "X-Request-Id": "edge-1"},
		kind: ErrRateLimited, detail: "-",
		errorHas: []string{"(retry after 2m0s) (request id edge-1)"}},
}

// trackingBody records how much of a body was read and whether it was closed.
type trackingBody struct {
	r      io.Reader
	read   int
	closed bool
}

func (b *trackingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read += n
	return n, err
}

func (b *trackingBody) Close() error { b.closed = true; return nil }

func runFixtures(t *testing.T, family string, fs []fixture) {
	for _, fx := range fs {
		name := fx.file
		if name == "" {
			name = family + "/generated-" + http.StatusText(fx.status)
		}
		t.Run(name, func(t *testing.T) {
			body := fx.body(t, "testdata")
			tb := &trackingBody{r: bytes.NewReader(body)}
			u, _ := url.Parse("https://api.example.com/customer/members/m1/address?token=hunter2")
			e := FromResponse(&http.Response{StatusCode: fx.status, Header: fx.headers(), Body: tb, Request: &http.Request{Method: http.MethodPost, URL: u}})
			if !tb.closed {
				t.Error("body not closed")
			}
			if want := min(len(body), MaxBodySnippet+1+256<<10); tb.read < want {
				t.Errorf("read %d bytes of %d: body not drained up to the bound", tb.read, len(body))
			}
			fx.verify(t, e, body, http.MethodPost+" /customer/members/m1/address")
		})
	}
}

// body reads the fixture's file under dir, or generates it.
func (fx fixture) body(t *testing.T, dir string) []byte {
	if fx.gen != nil {
		return fx.gen()
	}
	body, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(fx.file)))
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// headers are the response headers the fixture is served with; a
// Retry-After of "+90s" becomes the HTTP date that far ahead.
func (fx fixture) headers() http.Header {
	h := http.Header{}
	if fx.ct != "" {
		h.Set("Content-Type", fx.ct)
	}
	for k, v := range fx.header {
		if k == "Retry-After" && strings.HasPrefix(v, "+") {
			d, _ := time.ParseDuration(v[1:])
			v = time.Now().Add(d).UTC().Format(http.TimeFormat)
		}
		h.Set(k, v)
	}
	return h
}

// verify checks what FromResponse made of body, served for a request to
// request ("METHOD /path") whose query held the secret hunter2.
func (fx fixture) verify(t *testing.T, e *Error, body []byte, request string) {
	t.Helper()
	t.Logf("Error(): %s", e.Error())
	eq(t, "request", e.Method+" "+e.Path, request)
	eq(t, "StatusCode", e.StatusCode, fx.status)
	eq(t, "Content-Type", e.Header.Get("Content-Type"), fx.ct)
	if !bytes.Equal(e.Body, body[:min(len(body), MaxBodySnippet)]) {
		t.Error("Body is not the leading snippet of the body")
	}
	if got := e.Kind(); got != fx.kind {
		t.Errorf("Kind() = %v, want %v", got, fx.kind)
	}
	for _, k := range append([]error{fx.kind}, fx.is...) {
		if k != nil && !stderrors.Is(e, k) {
			t.Errorf("errors.Is(err, %v) = false", k)
		}
	}
	for _, k := range fx.isNot {
		if stderrors.Is(e, k) {
			t.Errorf("errors.Is(err, %v) = true", k)
		}
	}
	var wrapped error = &wrapErr{e}
	var as *Error
	if !stderrors.As(wrapped, &as) || as != e || (fx.kind != nil && !stderrors.Is(wrapped, fx.kind)) {
		t.Error("errors.As/Is through a wrapper failed")
	}
	gotFmt := ""
	switch {
	case e.Problem != nil && e.CodeMessage != nil:
		t.Error("both Problem and CodeMessage set")
	case e.Problem != nil:
		gotFmt = fmtProblem
	case e.CodeMessage != nil:
		gotFmt = fmtCM
	}
	eq(t, "format", gotFmt, fx.format)
	for _, c := range []struct{ what, got, want string }{{"Title()", e.Title(), fx.title}, {"Detail()", e.Detail(), fx.detail}} {
		switch c.want {
		case "": // not checked
		case "-":
			eq(t, c.what, c.got, "")
		default:
			eq(t, c.what, c.got, c.want)
		}
	}
	checkFields(t, e.FieldErrors(), fx.fields)
	msg := e.Error()
	checkOneLine(t, msg, 2048)
	if strings.Contains(msg, "hunter2") || strings.Contains(e.GoString(), "hunter2") {
		t.Errorf("query string leaked: %s", msg)
	}
	for _, s := range fx.errorHas {
		if !strings.Contains(msg, s) {
			t.Errorf("Error() = %q\nwant it to contain %q", msg, s)
		}
	}
	if fx.check != nil {
		fx.check(t, e)
	}
}

type wrapErr struct{ err error }

func (w *wrapErr) Error() string { return "wrapped: " + w.err.Error() }
func (w *wrapErr) Unwrap() error { return w.err }

func TestProblemFamily(t *testing.T) {
	if len(problemFixtures) < 25 {
		t.Fatalf("only %d problem bodies", len(problemFixtures))
	}
	runFixtures(t, "problem", problemFixtures)
}

func TestCodeMessageFamily(t *testing.T) {
	if len(codeMessageFixtures) < 20 {
		t.Fatalf("only %d code/message bodies", len(codeMessageFixtures))
	}
	runFixtures(t, "codemessage", codeMessageFixtures)
}

func TestOtherBodies(t *testing.T) { runFixtures(t, "other", otherFixtures) }

// TestEveryFixtureInTable keeps testdata/ and the tables in step.
func TestEveryFixtureInTable(t *testing.T) {
	inTable := map[string]bool{}
	for _, fs := range [][]fixture{problemFixtures, codeMessageFixtures, otherFixtures} {
		for _, f := range fs {
			inTable[f.file] = true
		}
	}
	for _, dir := range []string{"problem", "codemessage", "other"} {
		entries, err := os.ReadDir(filepath.Join("testdata", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, en := range entries {
			if !inTable[dir+"/"+en.Name()] {
				t.Errorf("testdata/%s/%s is not in any table", dir, en.Name())
			}
		}
	}
}
