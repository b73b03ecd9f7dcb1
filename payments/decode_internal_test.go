package payments

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// The operation decodes into paymentMethodJSON and converts: every field of
// PaymentMethod must survive that path as it survives UnmarshalJSON.
func TestPaymentMethodJSONCarriesEveryField(t *testing.T) {
	var want PaymentMethod
	v := reflect.ValueOf(&want).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); {
		case f.Type() == reflect.TypeFor[time.Time]():
			f.Set(reflect.ValueOf(time.Date(2024, 5, 6, 7, 8, 9, i, time.UTC)))
		case f.Kind() == reflect.String:
			f.SetString("value-" + v.Type().Field(i).Name)
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		default:
			t.Fatalf("field %s has kind %v: teach this test to fill it", v.Type().Field(i).Name, f.Kind())
		}
	}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var w paymentMethodJSON
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	got := w.paymentMethod()
	if !got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Fatalf("dates %v, %v; want %v, %v", got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt)
	}
	got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if *got != want {
		t.Fatalf("lost a field:\n got %+v\nwant %+v", *got, want)
	}
}
