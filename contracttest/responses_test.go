package contracttest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

const (
	mockBase = "https://api.example.test"
	mockUUID = "7d3c2a9e-3f1b-4c55-9a0e-1b2c3d4e5f60"
)

func readResponse(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return string(b)
}

// TestResponseHelpersAreValidAgainstTheContract: what the helpers build from
// a mostly empty value is a response of the documented operation, so a
// mocked test cannot drift from what the platform sends.
func TestResponseHelpersAreValidAgainstTheContract(t *testing.T) {
	t.Parallel()
	_, router := contract(t, mockBase)
	ctx := t.Context()
	for _, tc := range []struct {
		name, method, path, body string
		resp                     *http.Response
	}{
		{"operation 1, problem with an 8-digit code", http.MethodPut, "/auth/access-management/users/u", `{"firstName":"A"}`,
			sdktest.ProblemResponse(http.StatusConflict, apierrors.Problem{ServiceErrors: []apierrors.ServiceError{{Detail: "taken", Pointer: "/email"}}})},
		{"operation 2, provider not configured", http.MethodPut, "/auth/access-management/organizations/o/roles/org-a/permissions", `{"permissions":[]}`,
			sdktest.ProblemResponse(http.StatusServiceUnavailable, apierrors.Problem{Detail: "The access-management provider is not configured for this environment"})},
		{"operation 3, not implemented", http.MethodPatch, "/payment-methods/" + mockUUID, `{}`,
			sdktest.ProblemResponse(http.StatusNotImplemented, apierrors.Problem{ServiceCode: "NOT_IMPLEMENTED"})},
		{"operation 4, validation error", http.MethodPost, "/customer/members/" + mockUUID + "/address",
			`{"addressLineOne":"1","state":"s","suburb":"s","postcode":"1","country":"AU"}`,
			sdktest.CodeMessageResponse(http.StatusBadRequest, apierrors.CodeMessage{Errors: []apierrors.CodeMessageFieldError{{Field: "postcode", Message: "is required"}}})},
		{"operation 4, member not found", http.MethodPost, "/customer/members/" + mockUUID + "/address",
			`{"addressLineOne":"1","state":"s","suburb":"s","postcode":"1","country":"AU"}`,
			sdktest.CodeMessageResponse(http.StatusNotFound, apierrors.CodeMessage{})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(ctx, tc.method, mockBase+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			ex := exchange{req: req, reqBody: []byte(tc.body), status: tc.resp.StatusCode, header: tc.resp.Header, respBody: []byte(readResponse(t, tc.resp))}
			if err := validateResponse(ctx, router, ex); err != nil {
				t.Errorf("%s violates the contract:\n%v", ex.respBody, err)
			}
		})
	}
}
