package sdktest_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

const (
	mockBase   = "https://api.example.test"
	mockUserID = "user_1"
	mockUUID   = "7d3c2a9e-3f1b-4c55-9a0e-1b2c3d4e5f60"
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

// checkWireFormat checks a responder's status, Content-Type and exact body.
func checkWireFormat(t *testing.T, resp *http.Response, status int, contentType, want string) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != status || ct != contentType {
		t.Errorf("status %d, Content-Type %q; want %d, %q", resp.StatusCode, ct, status, contentType)
	}
	if got := readResponse(t, resp); got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
}

func TestProblemResponseWireFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		p      apierrors.Problem
		want   string
	}{
		{"zero members filled as the fake fills its own", http.StatusNotFound, apierrors.Problem{},
			`{"type":"https://sdktest.memberplatform.invalid/problems/not-found","title":"Not Found","status":404,"serviceCode":"40400001"}`},
		{"status without a named kind", http.StatusServiceUnavailable, apierrors.Problem{Detail: "down"},
			`{"type":"https://sdktest.memberplatform.invalid/problems/service-unavailable","title":"Service Unavailable","status":503,"detail":"down","serviceCode":"50300000"}`},
		{"every member, in the contract's order, extensions sorted after", http.StatusUnprocessableEntity, apierrors.Problem{
			Type: "https://errors.example/invalid", Title: "Invalid", Status: 422, Detail: "2 fields", Instance: "/auth/access-management/users/u",
			ServiceCode: "42200042", ServiceMeta: map[string]any{"provider": "workos", "attempt": 2},
			ServiceErrors: []apierrors.ServiceError{{Detail: "must be E.164", Pointer: "/mobileNumber"}, {Detail: "required", Pointer: ""}},
			Extensions:    map[string]any{"traceId": "abc", "balance": 30, "title": "ignored: a standard member"},
		}, `{"type":"https://errors.example/invalid","title":"Invalid","status":422,"detail":"2 fields","instance":"/auth/access-management/users/u",` +
			`"serviceCode":"42200042","serviceMeta":{"attempt":2,"provider":"workos"},` +
			`"serviceErrors":[{"detail":"must be E.164","pointer":"/mobileNumber"},{"detail":"required","pointer":""}],"balance":30,"traceId":"abc"}`},
		{"free-form serviceCode, for the payment operation", http.StatusNotImplemented, apierrors.Problem{ServiceCode: "NOT_IMPLEMENTED"},
			`{"type":"https://sdktest.memberplatform.invalid/problems/not-implemented","title":"Not Implemented","status":501,"serviceCode":"NOT_IMPLEMENTED"}`},
		{"a body status that differs from the HTTP status is kept", http.StatusBadGateway, apierrors.Problem{Status: 500, Title: "Upstream"},
			`{"type":"https://sdktest.memberplatform.invalid/problems/bad-gateway","title":"Upstream","status":500,"serviceCode":"50200000"}`},
		{"empty but non-nil meta and errors are written", http.StatusBadRequest, apierrors.Problem{ServiceMeta: map[string]any{}, ServiceErrors: []apierrors.ServiceError{}},
			`{"type":"https://sdktest.memberplatform.invalid/problems/bad-request","title":"Bad Request","status":400,"serviceCode":"40000001","serviceMeta":{},"serviceErrors":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkWireFormat(t, sdktest.ProblemResponse(tc.status, tc.p), tc.status, "application/problem+json", tc.want)
		})
	}
}

func TestCodeMessageResponseWireFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		cm     apierrors.CodeMessage
		want   string
	}{
		{"zero members filled as the fake fills its own", http.StatusNotFound, apierrors.CodeMessage{},
			`{"code":"MEMBER_NOT_FOUND","message":"Not Found"}`},
		{"validation error with field errors", http.StatusBadRequest, apierrors.CodeMessage{Message: "Validation failed",
			Errors: []apierrors.CodeMessageFieldError{{Field: "postcode", Message: "is required"}, {Field: "state", Message: "must not be empty"}}},
			`{"code":"VALIDATION_ERROR","message":"Validation failed","errors":[{"field":"postcode","message":"is required"},{"field":"state","message":"must not be empty"}]}`},
		{"non-nil empty errors are written", http.StatusBadRequest, apierrors.CodeMessage{Errors: []apierrors.CodeMessageFieldError{}},
			`{"code":"VALIDATION_ERROR","message":"Bad Request","errors":[]}`},
		{"extensions sorted after, standard names skipped", http.StatusInternalServerError, apierrors.CodeMessage{Code: "DB_DOWN", Message: "database unavailable",
			Extensions: map[string]any{"retryable": true, "code": "ignored", "details": []any{"a"}}},
			`{"code":"DB_DOWN","message":"database unavailable","details":["a"],"retryable":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkWireFormat(t, sdktest.CodeMessageResponse(tc.status, tc.cm), tc.status, "application/json", tc.want)
		})
	}
}

// newMockedClient returns a client that sends through a private httpmock
// transport, with retries off so each responder answers once.
func newMockedClient(t *testing.T) (*client.Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	c, err := client.New(option.WithBaseURL(mockBase), option.WithTransport(mt),
		option.WithTokenSource(client.StaticToken("test-token")), option.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	return c, mt
}

// TestRespondersDecodeBackThroughTheSDK: a value given to a responder is
// what the SDK's error reports, member for member.
func TestRespondersDecodeBackThroughTheSDK(t *testing.T) {
	t.Parallel()
	ctx := t.Context()

	t.Run("problem", func(t *testing.T) {
		t.Parallel()
		c, mt := newMockedClient(t)
		sent := apierrors.Problem{
			Type: "https://errors.example/conflict", Title: "CONFLICT", Status: 409, Detail: "email already used", Instance: "/req/1",
			ServiceCode: "40900007", ServiceMeta: map[string]any{"provider": "workos"},
			ServiceErrors: []apierrors.ServiceError{{Detail: "already used", Pointer: "/email"}},
			Extensions:    map[string]any{"traceId": "t-1"},
		}
		mt.RegisterResponder(http.MethodPut, mockBase+"/auth/access-management/users/"+mockUserID,
			sdktest.ProblemResponder(http.StatusConflict, sent).HeaderSet(http.Header{"X-Request-Id": {"req-9"}}))
		_, err := c.AccessMgmt.UpdateUser(ctx, mockUserID, accessmgmt.UpdateUserParams{Email: new("ada@example.com")})
		var apiErr *apierrors.Error
		if !errors.As(err, &apiErr) || !errors.Is(err, apierrors.ErrConflict) || apiErr.Problem == nil {
			t.Fatalf("err = %v", err)
		}
		if !reflect.DeepEqual(*apiErr.Problem, sent) {
			t.Errorf("decoded %+v\n   sent %+v", *apiErr.Problem, sent)
		}
		if fs := apiErr.FieldErrors(); len(fs) != 1 || fs[0].Field != "email" || fs[0].Message != "already used" {
			t.Errorf("field errors = %v", fs)
		}
		if apiErr.RequestID != "req-9" {
			t.Errorf("request id = %q: headers added with HeaderSet were lost", apiErr.RequestID)
		}
	})
	t.Run("code/message", func(t *testing.T) {
		t.Parallel()
		c, mt := newMockedClient(t)
		sent := apierrors.CodeMessage{Code: "VALIDATION_ERROR", Message: "Validation failed",
			Errors: []apierrors.CodeMessageFieldError{{Field: "postcode", Message: "is required"}}}
		mt.RegisterResponder(http.MethodPost, mockBase+"/customer/members/"+mockUUID+"/address", sdktest.CodeMessageResponder(http.StatusBadRequest, sent))
		_, err := c.Customer.UpsertMemberAddress(ctx, mockUUID, customer.UpsertMemberAddressParams{AddressLineOne: "1", State: "s", Suburb: "s", Postcode: "1", Country: "AU"})
		var apiErr *apierrors.Error
		if !errors.As(err, &apiErr) || !errors.Is(err, apierrors.ErrBadRequest) || apiErr.CodeMessage == nil {
			t.Fatalf("err = %v", err)
		}
		if !reflect.DeepEqual(*apiErr.CodeMessage, sent) {
			t.Errorf("decoded %+v\n   sent %+v", *apiErr.CodeMessage, sent)
		}
	})
	t.Run("a responder answers every call with a full body", func(t *testing.T) {
		t.Parallel()
		c, mt := newMockedClient(t)
		mt.RegisterResponder(http.MethodPatch, mockBase+"/payment-methods/"+mockUUID,
			sdktest.ProblemResponder(http.StatusNotImplemented, apierrors.Problem{ServiceCode: "NOT_IMPLEMENTED", Detail: "not here"}))
		for i := range 3 {
			_, err := c.Payments.UpdatePaymentMethod(ctx, mockUUID, payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)})
			var apiErr *apierrors.Error
			if !errors.As(err, &apiErr) || !errors.Is(err, apierrors.ErrNotImplemented) || apiErr.Problem == nil || apiErr.Problem.Detail != "not here" {
				t.Errorf("call %d: err = %v", i+1, err)
			}
		}
	})
}

func TestWriteProblemAndWriteCodeMessage(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	sdktest.WriteProblem(rec, http.StatusForbidden, apierrors.Problem{Detail: "no"})
	if rec.Code != 403 || rec.Header().Get("Content-Type") != "application/problem+json" ||
		rec.Body.String() != `{"type":"https://sdktest.memberplatform.invalid/problems/forbidden","title":"Forbidden","status":403,"detail":"no","serviceCode":"40300001"}` {
		t.Errorf("WriteProblem: %d %q %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	rec = httptest.NewRecorder()
	sdktest.WriteCodeMessage(rec, http.StatusUnauthorized, apierrors.CodeMessage{Message: "missing auth context"})
	if rec.Code != 401 || rec.Header().Get("Content-Type") != "application/json" ||
		rec.Body.String() != `{"code":"UNAUTHENTICATED","message":"missing auth context"}` {
		t.Errorf("WriteCodeMessage: %d %q %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
}

func TestResponseHelpersPanicOnUnencodableValues(t *testing.T) {
	t.Parallel()
	for name, build := range map[string]func(){
		"problem meta": func() {
			sdktest.ProblemResponse(400, apierrors.Problem{ServiceMeta: map[string]any{"ch": make(chan int)}})
		},
		"problem extension": func() { sdktest.ProblemResponse(400, apierrors.Problem{Extensions: map[string]any{"f": func() {}}}) },
		"code/message extension": func() {
			sdktest.CodeMessageResponse(400, apierrors.CodeMessage{Extensions: map[string]any{"ch": make(chan int)}})
		},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.HasPrefix(s, "sdktest: ") {
					t.Errorf("%s: recovered %v, want an sdktest panic", name, r)
				}
			}()
			build()
		}()
	}
}
