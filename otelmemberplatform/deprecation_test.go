package otelmemberplatform_test

import (
	"net/http"
	"testing"

	"github.com/memberplatform/memberplatform-go/option"
)

// deprecating marks every answer deprecated, with a sunset date and a link,
// as a platform phasing an operation out would.
func deprecating(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if resp != nil {
		resp.Header.Set("Deprecation", "@1767225600")
		resp.Header.Set("Sunset", "Wed, 01 Jul 2026 00:00:00 GMT")
		resp.Header.Set("Link", `<https://example.com/deprecations/users-v1>; rel="deprecation"`)
	}
	return resp, err
}

// TestDeprecatedAnswersCounted: each call answered deprecated counts once,
// by operation, area and sunset date, and its span gets the event.
func TestDeprecatedAnswersCounted(t *testing.T) {
	tel := newTelemetry(t)
	_, c := newServer(t, tel, option.WithMiddleware(deprecating))
	for range 3 {
		if err := updateUser(t, c); err != nil {
			t.Fatal(err)
		}
	}
	rm := tel.collect(t)
	want := map[string]string{"memberplatform.operation": userSpan, "memberplatform.area": "accessmgmt", "memberplatform.sunset": "2026-07-01"}
	if n := counterSum(t, rm, "memberplatform.client.deprecated_answers", want); n != 3 {
		t.Errorf("memberplatform.client.deprecated_answers%v = %d, want 3", want, n)
	}
	spans := tel.named(userSpan)
	if len(spans) != 3 {
		t.Fatalf("%d spans %s, want 3", len(spans), userSpan)
	}
	ev := events(spans[0], "memberplatform.deprecated")
	if len(ev) != 1 {
		t.Fatalf("%d deprecation events on the call span, want 1", len(ev))
	}
	if v, _ := eventAttr(ev[0], "memberplatform.sunset"); v.AsString() != "2026-07-01" {
		t.Errorf("event sunset %q", v.AsString())
	}
	if v, _ := eventAttr(ev[0], "memberplatform.deprecation.link"); v.AsString() != "https://example.com/deprecations/users-v1" {
		t.Errorf("event link %q", v.AsString())
	}
}

// TestCurrentAnswersNotCounted: without the headers, nothing is counted.
func TestCurrentAnswersNotCounted(t *testing.T) {
	tel := newTelemetry(t)
	_, c := newServer(t, tel)
	if err := updateUser(t, c); err != nil {
		t.Fatal(err)
	}
	if n := counterSum(t, tel.collect(t), "memberplatform.client.deprecated_answers", nil); n != 0 {
		t.Errorf("%d deprecated answers counted, want 0", n)
	}
}
