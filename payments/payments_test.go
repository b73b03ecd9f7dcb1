package payments_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/payments"
)

const (
	pmPath = "/payment-methods/" + pmID
	fullPM = `{"id":"` + pmID + `","billingAccountId":"` + acctID + `","lastFourDigits":"4242","cardBrand":"visa","expDate":"03/2030","primary":true,"createdAt":"2024-05-06T07:08:09Z","updatedAt":"2024-06-07T08:09:10.5+10:00"}`
)

var fullPMWant = payments.PaymentMethod{
	ID: pmID, BillingAccountID: acctID, LastFourDigits: "4242", CardBrand: "visa", ExpDate: "03/2030", Primary: true,
	CreatedAt: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
	UpdatedAt: time.Date(2024, 6, 6, 22, 9, 10, 500_000_000, time.UTC),
}

// samePM compares payment methods, times by instant.
func samePM(t *testing.T, got *payments.PaymentMethod, want payments.PaymentMethod) {
	t.Helper()
	if got == nil {
		t.Fatal("payment method is nil")
	}
	if !got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Errorf("times = %v, %v; want %v, %v", got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt)
	}
	g, w := *got, want
	g.Raw = w.Raw // RawJSON has tests of its own (rawjson_test.go)
	g.CreatedAt, g.UpdatedAt, w.CreatedAt, w.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if g != w {
		t.Errorf("payment method = %+v, want %+v", g, w)
	}
}

func TestExpDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		month time.Month
		year  int
		want  string
	}{
		{time.March, 2030, "03/2030"},
		{time.January, 2026, "01/2026"},
		{time.September, 2031, "09/2031"},
		{time.October, 2029, "10/2029"},
		{time.December, 2099, "12/2099"},
	}
	for _, tt := range tests {
		if got := payments.ExpDate(tt.month, tt.year); got != tt.want {
			t.Errorf("ExpDate(%v, %d) = %q, want %q", tt.month, tt.year, got, tt.want)
		}
	}
}

func TestUpdatePaymentMethodRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		params payments.UpdatePaymentMethodParams
		body   string
	}{
		{"set primary", payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)}, `{"setAsPrimary":true}`},
		{"explicit false", payments.UpdatePaymentMethodParams{SetAsPrimary: new(false)}, `{"setAsPrimary":false}`},
		{"expiry", payments.UpdatePaymentMethodParams{ExpDate: new(payments.ExpDate(time.March, 2030))}, `{"expDate":"03/2030"}`},
		{"expiry sent as given", payments.UpdatePaymentMethodParams{ExpDate: new("2030-03")}, `{"expDate":"2030-03"}`},
		{"both", payments.UpdatePaymentMethodParams{SetAsPrimary: new(false), ExpDate: new("12/2031")}, `{"setAsPrimary":false,"expDate":"12/2031"}`},
		{"neither", payments.UpdatePaymentMethodParams{}, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPatch, pmPath, areatest.JSON(http.StatusOK, fullPM))
			pm, err := m.Client().Payments.UpdatePaymentMethod(t.Context(), pmID, tt.params)
			if err != nil {
				t.Fatalf("UpdatePaymentMethod: %v", err)
			}
			r := m.Only()
			areatest.CheckRequest(t, r, http.MethodPatch, pmPath, tt.body, "Bearer "+token)
			samePM(t, pm, fullPMWant)
		})
	}
}

func TestUpdatePaymentMethodUppercaseUUID(t *testing.T) {
	t.Parallel()
	const id = "3F2B1C4D-5E6F-4A7B-8C9D-0E1F2A3B4C5D"
	m := areatest.NewMock(t)
	m.On(http.MethodPatch, "/payment-methods/"+id, areatest.JSON(http.StatusOK, fullPM))
	if _, err := m.Client().Payments.UpdatePaymentMethod(t.Context(), id, payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)}); err != nil {
		t.Fatal(err)
	}
	areatest.CheckRequest(t, m.Only(), http.MethodPatch, "/payment-methods/"+id, `{"setAsPrimary":true}`, "Bearer "+token)
}

func TestUpdatePaymentMethodDateTimeShapes(t *testing.T) {
	t.Parallel()
	want := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		name, raw string // raw is the JSON value of createdAt
		want      time.Time
	}{
		{"RFC 3339 UTC", `"2024-05-06T07:08:09Z"`, want},
		{"RFC 3339 offset", `"2024-05-06T17:08:09+10:00"`, want},
		{"RFC 3339 negative offset", `"2024-05-06T02:08:09-05:00"`, want},
		{"fractional millis", `"2024-05-06T07:08:09.123Z"`, want.Add(123 * time.Millisecond)},
		{"fractional nanos", `"2024-05-06T07:08:09.123456789Z"`, want.Add(123456789)},
		{"offset without colon", `"2024-05-06T07:08:09+0000"`, want},
		{"no zone is UTC", `"2024-05-06T07:08:09"`, want},
		{"no zone fractional", `"2024-05-06T07:08:09.25"`, want.Add(250 * time.Millisecond)},
		{"space separator", `"2024-05-06 07:08:09"`, want},
		{"space separator with zone", `"2024-05-06 09:08:09+02:00"`, want},
		{"epoch seconds", `1714979289`, want},
		{"epoch seconds fractional", `1714979289.5`, want.Add(500 * time.Millisecond)},
		{"epoch milliseconds", `1714979289123`, want.Add(123 * time.Millisecond)},
		{"epoch seconds string", `"1714979289"`, want},
		{"null", `null`, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			body := `{"id":"` + pmID + `","billingAccountId":"` + acctID + `","lastFourDigits":"0005","cardBrand":"amex","expDate":"11/2027","primary":false,"createdAt":` + tt.raw + `,"updatedAt":` + tt.raw + `}`
			m.On(http.MethodPatch, pmPath, areatest.JSON(http.StatusOK, body))
			pm, err := m.Client().Payments.UpdatePaymentMethod(t.Context(), pmID, payments.UpdatePaymentMethodParams{SetAsPrimary: new(false)})
			if err != nil {
				t.Fatalf("UpdatePaymentMethod: %v", err)
			}
			samePM(t, pm, payments.PaymentMethod{
				ID: pmID, BillingAccountID: acctID, LastFourDigits: "0005", CardBrand: "amex", ExpDate: "11/2027",
				CreatedAt: tt.want, UpdatedAt: tt.want,
			})
		})
	}
}

func TestUpdatePaymentMethodEmptySuccessBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		params payments.UpdatePaymentMethodParams
		want   payments.PaymentMethod
	}{
		{http.StatusOK, payments.UpdatePaymentMethodParams{SetAsPrimary: new(true), ExpDate: new("03/2030")}, payments.PaymentMethod{ID: pmID, Primary: true, ExpDate: "03/2030"}},
		{http.StatusNoContent, payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)}, payments.PaymentMethod{ID: pmID, Primary: true}},
		{http.StatusAccepted, payments.UpdatePaymentMethodParams{ExpDate: new("04/2031")}, payments.PaymentMethod{ID: pmID, ExpDate: "04/2031"}},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPatch, pmPath, areatest.JSON(tt.status, ""))
			pm, err := m.Client().Payments.UpdatePaymentMethod(t.Context(), pmID, tt.params)
			if err != nil {
				t.Fatalf("UpdatePaymentMethod: %v", err)
			}
			samePM(t, pm, tt.want)
		})
	}
}

func TestUpdatePaymentMethodValidation(t *testing.T) {
	t.Parallel()
	primary := payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)}
	tests := []struct {
		name   string
		id     string
		params payments.UpdatePaymentMethodParams
		fields []string // nil: valid
	}{
		{"lower-case uuid", pmID, primary, nil},
		{"upper-case uuid", "3F2B1C4D-5E6F-4A7B-8C9D-0E1F2A3B4C5D", primary, nil},
		{"nil uuid", "00000000-0000-0000-0000-000000000000", primary, nil},
		{"empty id", "", primary, []string{"id"}},
		{"blank id", "  ", primary, []string{"id"}},
		{"not a uuid", "pm_123", primary, []string{"id"}},
		{"uuid without hyphens", "3f2b1c4d5e6f4a7b8c9d0e1f2a3b4c5d", primary, []string{"id"}},
		{"uuid in braces", "{3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d}", primary, []string{"id"}},
		{"uuid urn", "urn:uuid:3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", primary, []string{"id"}},
		{"uuid too short", "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5", primary, []string{"id"}},
		{"uuid non-hex", "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5g", primary, []string{"id"}},
		{"uuid with path", pmID + "/../x", primary, []string{"id"}},
		{"uuid trailing newline", pmID + "\n", primary, []string{"id"}},

		// expDate: only an empty value is refused.
		{"expDate MM/YYYY", pmID, payments.UpdatePaymentMethodParams{ExpDate: new("03/2030")}, nil},
		{"expDate MM/YY", pmID, payments.UpdatePaymentMethodParams{ExpDate: new("03/30")}, nil},
		{"expDate ISO", pmID, payments.UpdatePaymentMethodParams{ExpDate: new("2030-03")}, nil},
		{"expDate anything", pmID, payments.UpdatePaymentMethodParams{ExpDate: new("March 2030")}, nil},
		{"expDate empty", pmID, payments.UpdatePaymentMethodParams{ExpDate: new("")}, []string{"expDate"}},
		{"expDate blank is sent as given", pmID, payments.UpdatePaymentMethodParams{ExpDate: new(" \t")}, nil},

		{"no fields", pmID, payments.UpdatePaymentMethodParams{}, nil},
		{"everything wrong", "nope", payments.UpdatePaymentMethodParams{SetAsPrimary: new(false), ExpDate: new("")}, []string{"id", "expDate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPatch, `=~^`+baseURL+`/payment-methods/`, areatest.JSON(http.StatusOK, fullPM))
			pm, err := m.Client().Payments.UpdatePaymentMethod(t.Context(), tt.id, tt.params)
			m.CheckValidation("payments.UpdatePaymentMethod", err, pm == nil, tt.fields)
		})
	}
}
