package errors

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// The decode benchmarks pair each body with a "raw" sub-benchmark: a plain
// encoding/json decode of the same body into structs holding only what the
// SDK keeps. That is the floor the lenient decoder is measured against.

// problemBody is a contract 422 problem with n serviceErrors, compact as
// servers send it.
func problemBody(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"type":"https://api.memberplatform.example/problems/unprocessable-entity","title":"UNPROCESSABLE_ENTITY","status":422,` +
		`"detail":"` + strconv.Itoa(n) + ` fields are invalid.","instance":"/auth/access-management/users/u1","serviceCode":"42200001",` +
		`"serviceMeta":{"provider":"workos","retryable":false},"serviceErrors":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"detail":"unknown permission","pointer":"/permissions/` + strconv.Itoa(i) + `"}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// codeMessageBody is a code/message validation error with n field errors.
func codeMessageBody(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"code":"VALIDATION_ERROR","message":"Request validation failed","errors":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"field":"addressLine` + strconv.Itoa(i) + `","message":"must not be blank"}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
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

func BenchmarkDecodeProblem(b *testing.B) {
	h := http.Header{"Content-Type": {"application/problem+json"}, "X-Request-Id": {"req-7f3a"}}
	for _, n := range []int{1, 100, 1000} {
		body := problemBody(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				e := Decode(http.StatusUnprocessableEntity, h, body)
				if e.Problem == nil || len(e.Problem.ServiceErrors) != n {
					b.Fatal("not decoded")
				}
			}
		})
		b.Run(strconv.Itoa(n)+"/raw", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var p rawProblem
				if err := json.Unmarshal(body, &p); err != nil || len(p.ServiceErrors) != n {
					b.Fatal("not decoded", err)
				}
			}
		})
	}
}

func BenchmarkDecodeCodeMessage(b *testing.B) {
	h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req-7f3a"}}
	for _, n := range []int{100} {
		body := codeMessageBody(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				e := Decode(http.StatusBadRequest, h, body)
				if e.CodeMessage == nil || len(e.CodeMessage.Errors) != n {
					b.Fatal("not decoded")
				}
			}
		})
		b.Run(strconv.Itoa(n)+"/raw", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var c rawCodeMessage
				if err := json.Unmarshal(body, &c); err != nil || len(c.Errors) != n {
					b.Fatal("not decoded", err)
				}
			}
		})
	}
}
