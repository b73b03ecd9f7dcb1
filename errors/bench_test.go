package errors

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Each decode benchmark has a "raw" sub-benchmark: a plain encoding/json
// decode of the same body into structs holding only what the SDK keeps, the
// floor the lenient decoder is measured against.

// listBody is head, then n items made by item, then "]}", compact as
// servers send it.
func listBody(head string, n int, item func(i string) string) []byte {
	var b strings.Builder
	b.WriteString(head)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item(strconv.Itoa(i)))
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// problemBody is a contract 422 problem with n serviceErrors.
func problemBody(n int) []byte {
	return listBody(`{"type":"https://api.memberplatform.example/problems/unprocessable-entity","title":"UNPROCESSABLE_ENTITY","status":422,`+
		`"detail":"`+strconv.Itoa(n)+` fields are invalid.","instance":"/auth/access-management/users/u1","serviceCode":"42200001",`+
		`"serviceMeta":{"provider":"workos","retryable":false},"serviceErrors":[`, n,
		func(i string) string { return `{"detail":"unknown permission","pointer":"/permissions/` + i + `"}` })
}

type rawProblem struct {
	Type          string         `json:"type"`
	Title         string         `json:"title"`
	Status        int            `json:"status"`
	Detail        string         `json:"detail"`
	Instance      string         `json:"instance"`
	ServiceCode   string         `json:"serviceCode"`
	ServiceMeta   map[string]any `json:"serviceMeta"`
	ServiceErrors []struct {
		Detail  string `json:"detail"`
		Pointer string `json:"pointer"`
	} `json:"serviceErrors"`
}

type rawCodeMessage struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Errors  []struct {
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"errors"`
}

// benchDecode runs Decode on body, and its raw floor, checking both found
// the n field errors.
func benchDecode(b *testing.B, name string, status int, contentType string, body []byte, n int, raw func([]byte) (int, error)) {
	h := http.Header{"Content-Type": {contentType}, "X-Request-Id": {"req-7f3a"}}
	b.Run(name, func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if e := Decode(status, h, body); decodedItems(e) != n {
				b.Fatal("not decoded")
			}
		}
	})
	b.Run(name+"/raw", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if got, err := raw(body); err != nil || got != n {
				b.Fatal("not decoded", err)
			}
		}
	})
}

// decodedItems counts the items of the decoded body's field-error list.
func decodedItems(e *Error) int {
	switch {
	case e.Problem != nil:
		return len(e.Problem.ServiceErrors)
	case e.CodeMessage != nil:
		return len(e.CodeMessage.Errors)
	}
	return -1
}

func BenchmarkDecodeProblem(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		benchDecode(b, strconv.Itoa(n), http.StatusUnprocessableEntity, "application/problem+json", problemBody(n), n, func(body []byte) (int, error) {
			var p rawProblem
			err := json.Unmarshal(body, &p)
			return len(p.ServiceErrors), err
		})
	}
}

func BenchmarkDecodeCodeMessage(b *testing.B) {
	body := listBody(`{"code":"VALIDATION_ERROR","message":"Request validation failed","errors":[`, 100,
		func(i string) string { return `{"field":"addressLine` + i + `","message":"must not be blank"}` })
	benchDecode(b, "100", http.StatusBadRequest, "application/json", body, 100, func(body []byte) (int, error) {
		var c rawCodeMessage
		err := json.Unmarshal(body, &c)
		return len(c.Errors), err
	})
}
