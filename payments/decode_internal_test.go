package payments

import "encoding/json"

// DecodeResponse decodes b the way UpdatePaymentMethod decodes a response
// (into paymentMethodJSON, then converted), for the external tests.
func DecodeResponse(b []byte) (*PaymentMethod, error) {
	var w paymentMethodJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, err
	}
	return w.paymentMethod(), nil
}
