package errors_test

import (
	"net/http"
	"testing"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/validate"
)

// A query parameter's error has one convention, whoever reports it: Field
// its name, Pointer "?" and its name, as FieldErrorsOf returns them from a
// problem's serviceErrors, a code/message body's errors and the SDK's own
// refusal alike.
func TestQueryParameterPointer(t *testing.T) {
	v := validate.Errors{Operation: "accessmgmt.ListUsers"}
	v.AddQuery("limit", "must be between 1 and 100")
	for name, err := range map[string]error{
		"problem": apierrors.Decode(http.StatusBadRequest, http.Header{"Content-Type": {"application/problem+json"}},
			[]byte(`{"title":"Bad Request","status":400,"serviceErrors":[{"detail":"must be between 1 and 100","pointer":"?limit"}]}`)),
		"code/message": apierrors.Decode(http.StatusBadRequest, http.Header{"Content-Type": {"application/json"}},
			[]byte(`{"code":"VALIDATION_ERROR","message":"bad","errors":[{"field":"?limit","message":"must be between 1 and 100"}]}`)),
		"the SDK's refusal": v.Err(),
	} {
		fields := apierrors.FieldErrorsOf(err)
		want := apierrors.FieldError{Field: "limit", Pointer: "?limit", Message: "must be between 1 and 100"}
		if len(fields) != 1 || fields[0] != want {
			t.Errorf("%s: FieldErrorsOf = %+v, want [%+v]", name, fields, want)
		}
	}
}
