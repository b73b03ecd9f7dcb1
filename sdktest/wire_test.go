package sdktest_test

import (
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

// TestSuccessBodiesOnTheWire pins the exact bytes the fake answers for the
// user and payment-method resources, so changing the Go types that hold
// them (sdktest's own or the SDK's) cannot change the wire format unnoticed.
func TestSuccessBodiesOnTheWire(t *testing.T) {
	t.Parallel()
	created := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	srv := sdktest.NewServer(t, sdktest.WithClock(func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 987654321, time.FixedZone("AEST", 10*3600)) }))
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	srv.AddUser(sdktest.User{ID: "user_2", Email: "grace@example.com", MobileNumber: "+61400000000", FirstName: "Grace", LastName: "Hopper"})
	pm := srv.AddPaymentMethod(sdktest.PaymentMethod{ID: "7d3c2a9e-3f1b-4c55-9a0e-1b2c3d4e5f60", BillingAccountID: "0c9d8e7f-6a5b-4c3d-8e1f-2a3b4c5d6e7f", CreatedAt: created})

	for _, tc := range []struct {
		name, method, path, body, want string
	}{
		{"user without optional fields", http.MethodPut, "/auth/access-management/users/user_1", `{"email":"ada@example.com"}`,
			`{"id":"user_1","email":"ada@example.com"}`},
		{"user with every field", http.MethodPut, "/auth/access-management/users/user_2", `{"lastName":"Hopper"}`,
			`{"id":"user_2","email":"grace@example.com","mobileNumber":"+61400000000","firstName":"Grace","lastName":"Hopper"}`},
		{"payment method: whole-second UTC timestamps", http.MethodPatch, "/payment-methods/" + pm.ID, `{"setAsPrimary":true}`,
			`{"id":"7d3c2a9e-3f1b-4c55-9a0e-1b2c3d4e5f60","billingAccountId":"0c9d8e7f-6a5b-4c3d-8e1f-2a3b4c5d6e7f","lastFourDigits":"4242","cardBrand":"visa","expDate":"12/2030","primary":true,"createdAt":"2024-05-06T07:08:09Z","updatedAt":"2025-01-01T17:04:05Z"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Authorization", "Bearer "+srv.IssueToken())
			resp, err := srv.HTTPClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || string(got) != tc.want {
				t.Errorf("%d %s\nwant 200 %s", resp.StatusCode, got, tc.want)
			}
		})
	}
}

// TestInspectionReturnsWhatTheSDKReturns: the fake hands back the SDK's own
// types, so a test compares what a call returned with what the fake stored
// without converting field by field.
func TestInspectionReturnsWhatTheSDKReturns(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t, sdktest.WithClock(fixedClock))
	seeded := srv.AddUser(accessmgmt.ProviderUser{ID: "user_1", Email: "ada@example.com"})
	pm := srv.AddPaymentMethod(payments.PaymentMethod{CardBrand: "amex"})
	c := srv.Client()

	u, err := c.AccessMgmt.UpdateUser(t.Context(), seeded.ID, accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	if err != nil {
		t.Fatal(err)
	}
	u.Raw = "" // the stored user was not decoded from an answer
	if stored, ok := srv.User(seeded.ID); !ok || stored != *u {
		t.Errorf("stored %+v, returned %+v", stored, *u)
	}
	got, err := c.Payments.UpdatePaymentMethod(t.Context(), pm.ID, payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)})
	if err != nil {
		t.Fatal(err)
	}
	got.Raw = ""
	if stored, ok := srv.PaymentMethod(pm.ID); !ok || !reflect.DeepEqual(stored, *got) {
		t.Errorf("stored %+v, returned %+v", stored, *got)
	}
}

// TestExpDateRequestFormats: the SDK sends expDate exactly as given and the
// contract does not fix its request format, so the fake takes the common
// spellings of a card expiry and stores (and reports) MM/YYYY, the format
// the resource has; anything else is a 400 naming the field.
func TestExpDateRequestFormats(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	pm := srv.AddPaymentMethod(sdktest.PaymentMethod{ExpDate: "01/2029"})
	c := srv.Client(option.WithMaxRetries(0))
	for _, tc := range []struct {
		sent, want string // want "" means rejected
	}{
		{"04/2031", "04/2031"},
		{"12/2099", "12/2099"},
		{"04/31", "04/2031"},
		{"2031-04", "04/2031"},
		{"2031-12", "12/2031"},
		{"4/2031", ""},
		{"13/2031", ""},
		{"00/31", ""},
		{"2031-13", ""},
		{"04/031", ""},
		{"April 2031", ""},
		{" 04/2031", ""},
		{"04-2031", ""},
		{"0431", ""},
	} {
		t.Run(tc.sent, func(t *testing.T) {
			before, _ := srv.PaymentMethod(pm.ID)
			got, err := c.Payments.UpdatePaymentMethod(t.Context(), pm.ID, payments.UpdatePaymentMethodParams{ExpDate: new(tc.sent)})
			stored, _ := srv.PaymentMethod(pm.ID)
			if tc.want != "" {
				if err != nil || got.ExpDate != tc.want || stored.ExpDate != tc.want {
					t.Errorf("err %v, returned %q, stored %q; want %q", err, got.ExpDate, stored.ExpDate, tc.want)
				}
				return
			}
			var apiErr *apierrors.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest {
				t.Fatalf("err = %v, want a 400", err)
			}
			if fs := apiErr.FieldErrors(); len(fs) != 1 || fs[0].Field != "expDate" || !strings.Contains(fs[0].Message, "MM/YYYY, MM/YY or YYYY-MM") {
				t.Errorf("field errors = %v", fs)
			}
			if stored.ExpDate != before.ExpDate {
				t.Errorf("a rejected expDate changed the stored one: %q -> %q", before.ExpDate, stored.ExpDate)
			}
		})
	}
}
