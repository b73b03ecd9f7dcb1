package payments

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/flextime"
	"github.com/memberplatform/memberplatform-go/internal/validate"
	"github.com/memberplatform/memberplatform-go/option"
)

// Service calls the payment-method operations; get it from
// client.Client.Payments. It is safe for concurrent use.
type Service struct{ client *core.Client }

func init() { core.NewPayments = func(c *core.Client) any { return &Service{c} } }

// pipeline is nil for a Service not built by client.New, which core.Do
// reports as an error.
func (s *Service) pipeline() *core.Client {
	if s == nil {
		return nil
	}
	return s.client
}

// PaymentMethod is a stored payment card.
type PaymentMethod struct {
	ID               string    `json:"id"`
	BillingAccountID string    `json:"billingAccountId"`
	LastFourDigits   string    `json:"lastFourDigits"`
	CardBrand        string    `json:"cardBrand"`
	ExpDate          string    `json:"expDate"` // MM/YYYY
	Primary          bool      `json:"primary"`
	CreatedAt        time.Time `json:"createdAt"`
	UpdatedAt        time.Time `json:"updatedAt"`
	// Raw holds the response body the payment method was decoded from:
	// RawJSON() returns it, for fields the SDK does not know yet.
	memberplatform.Raw `json:"-"`
}

// UnmarshalJSON decodes a payment method, reading createdAt and updatedAt
// in any of the date-time shapes servers send (RFC 3339 with or without
// fractional seconds or zone, a space instead of 'T', epoch seconds or
// milliseconds), since the contract says only "date-time".
func (p *PaymentMethod) UnmarshalJSON(b []byte) error {
	// As before, the dates are set only when the whole body decodes (a
	// missing date is then zero), while the other fields are written even
	// when a later member fails, as a plain decode into p would write them.
	w := paymentMethodJSON{ID: p.ID, BillingAccountID: p.BillingAccountID, LastFourDigits: p.LastFourDigits, CardBrand: p.CardBrand, ExpDate: p.ExpDate, Primary: p.Primary}
	err := json.Unmarshal(b, &w)
	p.ID, p.BillingAccountID, p.LastFourDigits, p.CardBrand, p.ExpDate, p.Primary = w.ID, w.BillingAccountID, w.LastFourDigits, w.CardBrand, w.ExpDate, w.Primary
	if err != nil {
		return err
	}
	p.CreatedAt, p.UpdatedAt = w.CreatedAt.Time, w.UpdatedAt.Time
	return nil
}

// paymentMethodJSON is PaymentMethod as it travels, with lenient dates.
// UpdatePaymentMethod decodes responses into it directly: going through
// PaymentMethod.UnmarshalJSON would make encoding/json scan every body
// twice. TestPaymentMethodRoundTripsEveryField catches a field added to
// PaymentMethod but not here.
type paymentMethodJSON struct {
	ID               string        `json:"id"`
	BillingAccountID string        `json:"billingAccountId"`
	LastFourDigits   string        `json:"lastFourDigits"`
	CardBrand        string        `json:"cardBrand"`
	ExpDate          string        `json:"expDate"`
	Primary          bool          `json:"primary"`
	CreatedAt        flextime.Time `json:"createdAt"`
	UpdatedAt        flextime.Time `json:"updatedAt"`

	memberplatform.Raw `json:"-"` // the body, set by the pipeline, handed to PaymentMethod
}

func (w *paymentMethodJSON) paymentMethod() *PaymentMethod {
	return &PaymentMethod{ID: w.ID, BillingAccountID: w.BillingAccountID, LastFourDigits: w.LastFourDigits, CardBrand: w.CardBrand,
		ExpDate: w.ExpDate, Primary: w.Primary, CreatedAt: w.CreatedAt.Time, UpdatedAt: w.UpdatedAt.Time, Raw: w.Raw}
}

// UpdatePaymentMethodParams are the fields to change; nil leaves a field as
// it is. SetAsPrimary: new(false) sends an explicit false. With neither set
// the request body is {}: the contract makes both fields optional and does
// not forbid an empty update, so the SDK does not either.
type UpdatePaymentMethodParams struct {
	SetAsPrimary *bool `json:"setAsPrimary,omitempty"`
	// ExpDate is sent exactly as given: the contract does not fix the
	// request format (the resource reports MM/YYYY, which ExpDate builds).
	// Only an empty string is refused.
	ExpDate *string `json:"expDate,omitempty"`
}

// Validate reports what UpdatePaymentMethod refuses in p before sending, as
// the same *errors.ValidationError (operation payments.UpdatePaymentMethod)
// naming the same fields: an ExpDate set but empty. It covers p alone: the
// payment method id that UpdatePaymentMethod takes beside it is checked by
// UpdatePaymentMethod (a UUID). nil when UpdatePaymentMethod would send p.
func (p UpdatePaymentMethodParams) Validate() error {
	v := validate.Errors{Operation: updatePaymentMethodOp.Name}
	p.check(&v)
	return v.Err()
}

// check adds to v what is wrong with p: the one list of
// UpdatePaymentMethod's checks of its params, which Validate runs too.
func (p *UpdatePaymentMethodParams) check(v *validate.Errors) {
	if p.ExpDate != nil && *p.ExpDate == "" {
		v.Add("expDate", "must not be empty when set")
	}
}

// ExpDate formats a card expiry as MM/YYYY, the format the platform reports.
func ExpDate(month time.Month, year int) string {
	return fmt.Sprintf("%02d/%04d", int(month), year)
}

// The PATCH sets absolute values (primary = true/false, expDate = X), so
// repeating it leaves the same state: safe to retry.
var updatePaymentMethodOp = core.Declare(core.Operation{
	Name: "payments.UpdatePaymentMethod", Method: http.MethodPatch, Path: "/payment-methods/{id}",
	Area: memberplatform.AreaPayments, Errors: core.ProblemTextErrors, Idempotent: true, Auth: true,
})

// UpdatePaymentMethod updates payment method id (a UUID) and returns it.
//
// A platform that does not implement the operation answers with a "Not
// implemented" problem: errors.Is(err, apierrors.ErrNotImplemented). If the
// platform answers 2xx with an empty body, the returned value holds only the
// ID and the fields that were sent.
func (s *Service) UpdatePaymentMethod(ctx context.Context, id string, params UpdatePaymentMethodParams, opts ...option.RequestOption) (*PaymentMethod, error) {
	v := validate.Errors{Operation: updatePaymentMethodOp.Name}
	validate.UUIDParam(&v, "id", id)
	params.check(&v)
	var decoded paymentMethodJSON
	call := &core.Call{Op: updatePaymentMethodOp, Invalid: v.Err(), PathParams: [2]string{id}, Body: &params, Result: &decoded}
	if err := core.Do(ctx, s.pipeline(), call, opts); err != nil {
		return nil, err
	}
	pm := decoded.paymentMethod()
	if pm.ID == "" {
		pm.ID = id
		if params.SetAsPrimary != nil {
			pm.Primary = *params.SetAsPrimary
		}
		if params.ExpDate != nil {
			pm.ExpDate = *params.ExpDate
		}
	}
	return pm, nil
}
