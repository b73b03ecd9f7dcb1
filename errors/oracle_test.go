package errors

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The decoder reads bodies with internal/jsonscan for speed; these tests
// hold what it decodes to encoding/json decoding the same body into plain
// structs, as a user would: the same member names (matched in any case, as
// encoding/json matches them), the same values.

// lastOf returns the raw value encoding/json gives a field tagged name.
func lastOf(body []byte, name string) json.RawMessage {
	typ := reflect.StructOf([]reflect.StructField{{Name: "F", Type: reflect.TypeFor[json.RawMessage](), Tag: reflect.StructTag(`json:"` + name + `"`)}})
	v := reflect.New(typ)
	if json.Unmarshal(body, v.Interface()) != nil {
		return nil
	}
	return v.Elem().Field(0).Interface().(json.RawMessage)
}

// nonEmpty drops the items the SDK skips: those with neither member set.
func nonEmpty[T comparable](items []T) []T {
	var zero T
	var out []T
	for _, it := range items {
		if it != zero {
			out = append(out, it)
		}
	}
	return out
}

func checkAgainstEncodingJSON(t *testing.T, contentType string, body []byte) {
	t.Helper()
	e := Decode(422, http.Header{"Content-Type": {contentType}}, body)
	switch {
	case e.Problem != nil:
		var want struct {
			Type, Title      string
			Status           int
			Detail, Instance string
			ServiceMeta      map[string]any
		}
		if json.Unmarshal(body, &want) != nil {
			return
		}
		p := e.Problem
		got := want
		got.Type, got.Title, got.Status, got.Detail, got.Instance, got.ServiceMeta = p.Type, p.Title, p.Status, p.Detail, p.Instance, p.ServiceMeta
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: problem\n got %+v\nwant %+v (encoding/json)", body, got, want)
		}
		var items []ServiceError
		if raw := lastOf(body, "serviceErrors"); raw != nil && json.Unmarshal(raw, &items) == nil {
			if items = nonEmpty(items); !reflect.DeepEqual(p.ServiceErrors, items) {
				t.Fatalf("%q: serviceErrors\n got %+v\nwant %+v (encoding/json)", body, p.ServiceErrors, items)
			}
		}
	case e.CodeMessage != nil:
		var want struct{ Code, Message string }
		if json.Unmarshal(body, &want) != nil {
			return
		}
		if e.CodeMessage.Code != want.Code || e.CodeMessage.Message != want.Message {
			t.Fatalf("%q: code/message %q, %q; encoding/json %q, %q", body, e.CodeMessage.Code, e.CodeMessage.Message, want.Code, want.Message)
		}
		var items []CodeMessageFieldError
		if raw := lastOf(body, "errors"); raw != nil && json.Unmarshal(raw, &items) == nil {
			if items = nonEmpty(items); !reflect.DeepEqual(e.CodeMessage.Errors, items) {
				t.Fatalf("%q: errors\n got %+v\nwant %+v (encoding/json)", body, e.CodeMessage.Errors, items)
			}
		}
	}
}

var oracleBodies = []string{
	`{"type":"about:blank","title":"Unprocessable","serviceErrors":[{"Detail":"must be an email address","Pointer":"/email"}]}`,
	`{"TITLE":"T","Detail":"d","STATUS":422,"serviceerrors":[{"DETAIL":"x","pointer":"/a"},{"detail":"y","POINTER":"/b","Pointer":"/c"}]}`,
	`{"title":"T","serviceErrors":[{"detail":"first"}],"ServiceErrors":[{"pointer":"/second"}]}`,
	`{"title":"T","detail":"a","Detail":null,"ſerviceCode":"40000001","\u0074itle":"escaped"}`,
	`{"Code":"VALIDATION_ERROR","MESSAGE":"m","Errors":[{"Field":"postcode","Message":"must be 4 digits"},{"FIELD":"state"}]}`,
	`{"code":"C","message":"m","errors":[{"field":"a","message":"b","fi\u212ald":"kelvin"}]}`,
	`{"title":"T","status":422,"Status":null}`,
	`{"title":"T","status":12345678901234567}`,
}

func TestDecodeAgreesWithEncodingJSON(t *testing.T) {
	for _, body := range oracleBodies {
		checkAgainstEncodingJSON(t, "application/json", []byte(body))
		checkAgainstEncodingJSON(t, "application/problem+json", []byte(body))
	}
	for _, dir := range []string{"problem", "codemessage"} {
		entries, _ := os.ReadDir(filepath.Join("testdata", dir))
		for _, en := range entries {
			body, err := os.ReadFile(filepath.Join("testdata", dir, en.Name()))
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstEncodingJSON(t, "application/problem+json", body)
			checkAgainstEncodingJSON(t, "application/json", body)
		}
	}
}

// TestFieldErrorsInAnyCase is issue 18's case: items spelled {"Detail",
// "Pointer"} give field errors, as encoding/json would read them.
func TestFieldErrorsInAnyCase(t *testing.T) {
	for _, body := range []string{
		`{"title":"UNPROCESSABLE_ENTITY","serviceErrors":[{"Detail":"must be an email address","Pointer":"/email"}]}`,
		`{"Title":"UNPROCESSABLE_ENTITY","ServiceErrors":[{"DETAIL":"must be an email address","POINTER":"/email"}]}`,
		`{"code":"VALIDATION_ERROR","message":"m","Errors":[{"Field":"/email","Message":"must be an email address"}]}`,
	} {
		e := Decode(422, http.Header{"Content-Type": {"application/json"}}, []byte(body))
		checkFields(t, e.FieldErrors(), []FieldError{{Field: "email", Pointer: "/email", Message: "must be an email address"}})
		if !strings.Contains(e.Error(), "[email: must be an email address]") {
			t.Errorf("%s: Error() = %q", body, e.Error())
		}
	}
}

// FuzzDecodeAgreesWithEncodingJSON: any body decodes as encoding/json
// decodes it into plain structs.
func FuzzDecodeAgreesWithEncodingJSON(f *testing.F) {
	for _, body := range oracleBodies {
		f.Add(true, []byte(body))
	}
	f.Fuzz(func(t *testing.T, problem bool, body []byte) {
		ct := "application/json"
		if problem {
			ct = "application/problem+json"
		}
		checkAgainstEncodingJSON(t, ct, body)
	})
}
