package core

import (
	"net/http"
	"testing"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// The callers of one token fetch each get their own copy of the answer it
// waits out: one caller's Redact changed the header, body and problem
// fields of the others' errors (a shared *apierrors.Error), racing with
// their reads.
func TestCloneAnswerIsTheCallersOwn(t *testing.T) {
	orig := &apierrors.Error{StatusCode: http.StatusTooManyRequests,
		Header: http.Header{"Retry-After": {"10"}, "X-Echo": {"s3cret-token-value-0123"}}, Body: []byte(`{"detail":"s3cret-token-value-0123"}`),
		Problem:     &apierrors.Problem{Detail: "s3cret-token-value-0123", ServiceErrors: []apierrors.ServiceError{{Detail: "s3cret-token-value-0123"}}},
		CodeMessage: &apierrors.CodeMessage{Message: "s3cret-token-value-0123", Errors: []apierrors.CodeMessageFieldError{{Message: "s3cret-token-value-0123"}}}}
	cp := cloneAnswer(orig)
	cp.Redact("s3cret-token-value-0123")
	if orig.Header.Get("X-Echo") != "s3cret-token-value-0123" || string(orig.Body) != `{"detail":"s3cret-token-value-0123"}` || orig.Problem.Detail != "s3cret-token-value-0123" ||
		orig.Problem.ServiceErrors[0].Detail != "s3cret-token-value-0123" || orig.CodeMessage.Message != "s3cret-token-value-0123" || orig.CodeMessage.Errors[0].Message != "s3cret-token-value-0123" {
		t.Errorf("redacting the copy changed the original: %+v %+v %+v", orig, orig.Problem, orig.CodeMessage)
	}
	if cp.Header.Get("X-Echo") == "s3cret-token-value-0123" || cp.Problem.ServiceErrors[0].Detail == "s3cret-token-value-0123" {
		t.Error("the copy was not redacted")
	}
}
