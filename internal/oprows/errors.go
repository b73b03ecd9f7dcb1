package oprows

import (
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
)

// FormatErrors are the error answers every operation of format f is
// checked against, as the contract names them, before its row's own.
// The contract names the problem responses but not their numeric statuses;
// the statuses here are the conventional ones, and the provider-not-
// configured response is assumed to be a 503 (as documented in package
// errors). It gives neither the statuses nor the code values of the
// code/message responses; these are plausible ones.
func FormatErrors(f core.ErrorFormat) []ErrorCase {
	if f == core.CodeMessageErrors {
		return codeMessageErrors
	}
	return problemErrors
}

func problem(title string, status int, code, detail string, extra string) string {
	return fmt.Sprintf(`{"type":"https://api.memberplatform.example/problems/%s","title":%q,"status":%d,"detail":%q,"instance":"/i/1","serviceCode":%q%s}`,
		strings.ToLower(strings.ReplaceAll(title, "_", "-")), title, status, detail, code, extra)
}

var problemErrors = []ErrorCase{
	{Name: "BAD_REQUEST", Status: 400, Body: problem("BAD_REQUEST", 400, "40000001", "The request is malformed.", `,"serviceErrors":[{"detail":"must not be empty","pointer":"/firstName"}]`),
		Kind: apierrors.ErrBadRequest, Title: "BAD_REQUEST (40000001)", Detail: "The request is malformed.",
		Fields: []apierrors.FieldError{{Field: "firstName", Pointer: "/firstName", Message: "must not be empty"}}},
	// A 401 makes the client drop the token and resend once.
	{Name: "UNAUTHORIZED", Status: 401, Body: problem("UNAUTHORIZED", 401, "40100001", "The service JWT is invalid.", ""),
		Kind: apierrors.ErrUnauthorized, Title: "UNAUTHORIZED (40100001)", Detail: "The service JWT is invalid.", Requests: 2},
	{Name: "FORBIDDEN", Status: 403, Body: problem("FORBIDDEN", 403, "40300001", "Not allowed.", `,"serviceMeta":{"organizationId":"org_01"}`),
		Kind: apierrors.ErrForbidden, Title: "FORBIDDEN (40300001)", Detail: "Not allowed.",
		Check: func(t *testing.T, e *apierrors.Error) {
			if e.Problem.ServiceMeta["organizationId"] != "org_01" {
				t.Errorf("serviceMeta = %v", e.Problem.ServiceMeta)
			}
		}},
	{Name: "NOT_FOUND", Status: 404, Body: problem("NOT_FOUND", 404, "40400001", "No such resource.", ""),
		Kind: apierrors.ErrNotFound, Title: "NOT_FOUND (40400001)", Detail: "No such resource."},
	{Name: "CONFLICT", Status: 409, Body: problem("CONFLICT", 409, "40900001", "Already exists.", ""),
		Kind: apierrors.ErrConflict, Title: "CONFLICT (40900001)", Detail: "Already exists."},
	{Name: "UNPROCESSABLE_ENTITY", Status: 422, Body: problem("UNPROCESSABLE_ENTITY", 422, "42200001", "Invalid values.", `,"serviceErrors":[{"detail":"unknown permission","pointer":"/permissions/1"},{"detail":"not E.164","pointer":"/mobileNumber"}]`),
		Kind: apierrors.ErrUnprocessableEntity, Title: "UNPROCESSABLE_ENTITY (42200001)", Detail: "Invalid values.",
		Fields: []apierrors.FieldError{{Field: "permissions[1]", Pointer: "/permissions/1", Message: "unknown permission"}, {Field: "mobileNumber", Pointer: "/mobileNumber", Message: "not E.164"}}},
	{Name: "provider rate limited", Status: 429, Header: map[string]string{"Retry-After": "30"},
		Body: problem("Provider rate limited", 429, "42900001", "The configured access provider rate limited the request.", `,"serviceMeta":{"provider":"workos"}`),
		Kind: apierrors.ErrRateLimited, Title: "Provider rate limited (42900001)", Detail: "The configured access provider rate limited the request.",
		Check: func(t *testing.T, e *apierrors.Error) {
			if e.RetryAfter != 30*time.Second {
				t.Errorf("RetryAfter = %v, want 30s", e.RetryAfter)
			}
			if !strings.Contains(e.Error(), "(retry after 30s)") {
				t.Errorf("Error() = %q lacks the wait", e.Error())
			}
		}},
	{Name: "INTERNAL_SERVER_ERROR", Status: 500, Body: problem("INTERNAL_SERVER_ERROR", 500, "50000001", "Unexpected provider response.", ""),
		Kind: apierrors.ErrInternal, Title: "INTERNAL_SERVER_ERROR (50000001)", Detail: "Unexpected provider response."},
	{Name: "provider not configured", Status: 503,
		Body: problem("Provider not configured", 503, "50300001", "The access-management provider is not configured for this environment.", ""),
		Kind: apierrors.ErrProviderNotConfigured, Also: []error{apierrors.ErrServiceUnavailable},
		Title: "Provider not configured (50300001)", Detail: "The access-management provider is not configured for this environment.",
		Check: func(t *testing.T, e *apierrors.Error) {
			if e.Temporary() {
				t.Error("provider not configured reported as Temporary")
			}
		}},
}

var codeMessageErrors = []ErrorCase{
	{Name: "validation error", Status: 400,
		Body: `{"code":"VALIDATION_ERROR","message":"Request validation failed","errors":[{"field":"postcode","message":"must be 4 digits"},{"field":"country","message":"unsupported"}]}`,
		Kind: apierrors.ErrBadRequest, Also: []error{apierrors.ErrUnprocessableEntity}, Title: "VALIDATION_ERROR", Detail: "Request validation failed",
		Fields: []apierrors.FieldError{{Field: "postcode", Message: "must be 4 digits"}, {Field: "country", Message: "unsupported"}},
		Check: func(t *testing.T, e *apierrors.Error) {
			if len(e.CodeMessage.Errors) != 2 || e.CodeMessage.Errors[0].Field != "postcode" {
				t.Errorf("errors = %+v", e.CodeMessage.Errors)
			}
		}},
	// A 401 makes the client drop the token and resend once.
	{Name: "unauthenticated", Status: 401, Body: `{"code":"UNAUTHENTICATED","message":"Missing or invalid auth context"}`,
		Kind: apierrors.ErrUnauthorized, Title: "UNAUTHENTICATED", Detail: "Missing or invalid auth context", Requests: 2},
	{Name: "forbidden", Status: 403, Body: `{"code":"FORBIDDEN","message":"The caller lacks the required permission"}`,
		Kind: apierrors.ErrForbidden, Title: "FORBIDDEN", Detail: "The caller lacks the required permission"},
	{Name: "member not found", Status: 404, Body: `{"code":"MEMBER_NOT_FOUND","message":"Member not found"}`,
		Kind: apierrors.ErrNotFound, Title: "MEMBER_NOT_FOUND", Detail: "Member not found"},
	{Name: "internal error", Status: 500, Body: `{"code":"INTERNAL_ERROR","message":"database failure"}`,
		Kind: apierrors.ErrInternal, Title: "INTERNAL_ERROR", Detail: "database failure"},
}
