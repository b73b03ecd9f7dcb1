package errors

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// realBodiesDir is the real-world corpus kept in the repository at
// testdata/error-bodies, so that every clone runs these tests.
func realBodiesDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join("..", "testdata", "error-bodies")
	if _, err := os.Stat(filepath.Join(d, "README.md")); err != nil {
		t.Fatalf("real error bodies missing from the repository: %v", err)
	}
	return d
}

// realBodies has a row for each file of the shared corpus, served with the
// content type and status its README gives (where it gives none, the choice
// is noted).
var realBodies = []fixture{
	{file: "01-rfc9457-out-of-credit.json", ct: "application/problem+json", status: 403, header: map[string]string{"Content-Language": "en"},
		kind: ErrForbidden, format: fmtProblem, title: "You do not have enough credit.", detail: "Your current balance is 30, but that costs 50.",
		check: func(t *testing.T, e *Error) {
			p := e.Problem
			eq(t, "type", p.Type, "https://example.com/probs/out-of-credit")
			eq(t, "instance", p.Instance, "/account/12345/msgs/abc")
			eq(t, "status (absent in body)", p.Status, 0)
			eq(t, "balance", p.Extensions["balance"], any(float64(30)))
			eq(t, "accounts", p.Extensions["accounts"], any([]any{"/account/12345", "/account/67890"}))
			eq(t, "Content-Language", e.Header.Get("Content-Language"), "en")
		}},
	{file: "03-rfc7807-invalid-params.json", ct: "application/problem+json", status: 400,
		kind: ErrBadRequest, format: fmtProblem, title: "Your request parameters didn't validate.",
		check: func(t *testing.T, e *Error) {
			eq(t, "type", e.Problem.Type, "https://example.net/validation-error")
			if _, ok := e.Problem.Extensions["invalid-params"]; !ok {
				t.Error("invalid-params not kept in Extensions")
			}
		}},
	{file: "05-api-platform-violations-422.json", ct: "application/problem+json; charset=utf-8", status: 422,
		kind: ErrUnprocessableEntity, format: fmtProblem, title: "An error occurred", detail: "title: This value should not be blank.",
		check: func(t *testing.T, e *Error) {
			eq(t, "status", e.Problem.Status, 422)
			eq(t, "type", e.Problem.Type, "/validation_errors/c1051bb4-d103-4f74-8988-acbcafc7fdc3")
		}},
	{file: "07-huma-422-errors-location-value.json", ct: "application/problem+json", status: 422, header: map[string]string{"Link": `</schemas/ErrorModel.json>; rel="describedBy"`},
		kind: ErrUnprocessableEntity, format: fmtProblem, title: "Unprocessable Entity", detail: "validation failed",
		check: func(t *testing.T, e *Error) {
			eq(t, "$schema", e.Problem.Extensions["$schema"], any("https://api.rest.sh/schemas/ErrorModel.json"))
			eq(t, "type", e.Problem.Type, "")
		}},
	{file: "09-zalando-500-causal-chain-stacktrace.json", ct: "application/problem+json", status: 500,
		kind: ErrInternal, format: fmtProblem, title: "Internal Server Error", detail: "Illegal State",
		check: func(t *testing.T, e *Error) {
			cause, ok := e.Problem.Extensions["cause"].(map[string]any)
			if !ok || cause["detail"] != "Illegal Argument" {
				t.Errorf("cause extension = %#v", e.Problem.Extensions["cause"])
			}
			if st, ok := e.Problem.Extensions["stacktrace"].([]any); !ok || len(st) != 2 {
				t.Errorf("stacktrace extension = %#v", e.Problem.Extensions["stacktrace"])
			}
			if !e.Temporary() {
				t.Error("a 500 should be Temporary")
			}
		}},
	// README: content type not stated; served as plain application/json to
	// prove detection by members.
	{file: "11-adyen-management-401-no-detail.json", ct: "application/json", status: 401,
		kind: ErrUnauthorized, format: fmtProblem, title: "Unauthorized", detail: "-",
		check: func(t *testing.T, e *Error) {
			eq(t, "errorCode", e.Problem.Extensions["errorCode"], any("00_401"))
			eq(t, "status", e.Problem.Status, 401)
		}},
	{file: "13-aspnetcore-400-validation-instance-traceid.json", ct: "application/problem+json; charset=utf-8", status: 400, header: map[string]string{"Server": "Kestrel"},
		kind: ErrBadRequest, format: fmtProblem, title: "One or more validation errors occurred.",
		check: func(t *testing.T, e *Error) {
			eq(t, "instance", e.Problem.Instance, "/api/shirts/18")
			eq(t, "traceId", e.Problem.Extensions["traceId"], any("00-08e7305c11eded02554599f186c93598-14005217aa88c42f-00"))
		}},
	{file: "15-fakerestapi-400-json-path-errors.json", ct: "application/problem+json; charset=utf-8", status: 400, header: map[string]string{"Server": "Kestrel"},
		kind: ErrBadRequest, format: fmtProblem, title: "One or more validation errors occurred.", detail: "-"},
	{file: "17-laminas-422-validation-messages-map.json", ct: "application/problem+json", status: 422,
		kind: ErrUnprocessableEntity, format: fmtProblem, title: "Unprocessable Entity", detail: "Failed Validation"},
	// README: content type not stated; Swedbank Pay problems follow RFC 7807.
	{file: "19-swedbankpay-403-problems-suspension.json", ct: "application/problem+json", status: 403,
		kind: ErrForbidden, format: fmtProblem, title: "SuspensionWarning. The card might be blocked.", detail: "5 attempts left before the card is blocked.",
		check: func(t *testing.T, e *Error) {
			if ps, ok := e.Problem.Extensions["problems"].([]any); !ok || len(ps) != 3 {
				t.Errorf("problems extension = %#v", e.Problem.Extensions["problems"])
			}
			s, _ := e.Problem.Extensions["suspension"].(map[string]any)
			eq(t, "suspension.remaining", s["remaining"], any(float64(3)))
		}},
	{file: "21-stellar-horizon-404-instance-not-uri.json", ct: "application/problem+json; charset=utf-8", status: 404,
		kind: ErrNotFound, format: fmtProblem, title: "Resource Missing",
		check: func(t *testing.T, e *Error) {
			eq(t, "instance", e.Problem.Instance, "horizon-live-001/61KdRW8tKi-18408110")
			if !strings.HasPrefix(e.Detail(), "The resource at the url requested was not found.") {
				t.Errorf("detail = %q", e.Detail())
			}
		}},
	{file: "23-huma-406-errors-message-only.json", ct: "application/problem+json", status: 406,
		kind: nil, format: fmtProblem, title: "Not Acceptable", detail: "unable to marshal response"},
	// README: library fixture, no status; served with 500 to prove the
	// HTTP status is authoritative over the body's 666.
	{file: "25-zalando-problem-status-666.json", ct: "application/problem+json", status: 500,
		kind: ErrInternal, format: fmtProblem, title: "Gates of Hell opened", detail: "Lucifer opened the gates of hell",
		errorHas: []string{": 500 Internal Server Error: Gates of Hell opened"},
		check: func(t *testing.T, e *Error) {
			eq(t, "body status", e.Problem.Status, 666)
			eq(t, "HTTP status", e.StatusCode, 500)
		}},
	{file: "27-acme-rfc8555-403-subproblems-urn-type.json", ct: "application/problem+json", status: 403, header: map[string]string{"Link": `<https://example.com/acme/directory>;rel="index"`},
		kind: ErrForbidden, format: fmtProblem, title: "urn:ietf:params:acme:error:malformed", detail: "Some of the identifiers requested were rejected",
		check: func(t *testing.T, e *Error) {
			eq(t, "title", e.Problem.Title, "")
			if _, ok := e.Problem.Extensions["subproblems"]; !ok {
				t.Error("subproblems not kept")
			}
		}},
	// README: no content type set by the test server (Go sniffs text/plain).
	{file: "29-acme-400-type-only.json", ct: "text/plain; charset=utf-8", status: 400, header: map[string]string{"Retry-After": "0"},
		kind: ErrBadRequest, format: fmtProblem, title: "urn:ietf:params:acme:error:badNonce",
		check: func(t *testing.T, e *Error) {
			eq(t, "RetryAfter", e.RetryAfter, 0)
			eq(t, "Retry-After header", e.Header.Get("Retry-After"), "0")
		}},
	{file: "31-workos-400-code-message-errors-strings.json", ct: "application/json", status: 400, header: map[string]string{"X-Request-Id": "req_01HYGGEB6FYMWQNWF3XDZG7VV3"},
		kind: ErrBadRequest, format: fmtCM, title: "invalid_audit_logs", detail: "Invalid Audit",
		errorHas: []string{"(request id req_01HYGGEB6FYMWQNWF3XDZG7VV3)"},
		check: func(t *testing.T, e *Error) {
			eq(t, "RequestID", e.RequestID, "req_01HYGGEB6FYMWQNWF3XDZG7VV3")
			eq(t, "errors (strings, not the contract's items) kept", e.CodeMessage.Extensions["errors"], any([]any{"another_error"}))
		}},
	{file: "32-workos-422-email-verification-required.json", ct: "application/json", status: 422,
		kind: ErrUnprocessableEntity, format: fmtCM, title: "email_verification_required", detail: "Email ownership must be verified before authentication.",
		check: func(t *testing.T, e *Error) {
			eq(t, "token kept", e.CodeMessage.Extensions["pending_authentication_token"], any("YQyCkYfuVw2mI3tzSrk2C1Y7S"))
			eq(t, "email kept", e.CodeMessage.Extensions["email"], any("marcelina.davis@example.com"))
			for _, s := range []string{e.Error(), e.GoString()} {
				if strings.Contains(s, "YQyCkYfuVw2mI3tzSrk2C1Y7S") {
					t.Errorf("error text leaks the pending authentication token: %s", s)
				}
			}
		}},
	{file: "33-workos-400-oauth-invalid-grant.json", ct: "application/json", status: 400,
		kind: ErrBadRequest, title: "-", detail: "-"},
	{file: "35-github-422-live-recording.json", ct: "application/json; charset=utf-8", status: 422, header: map[string]string{"Server": "GitHub.com"},
		kind: ErrUnprocessableEntity, format: fmtCM, title: "-", detail: "Validation Failed",
		fields: []FieldError{{Field: "color"}},
		check: func(t *testing.T, e *Error) {
			eq(t, "documentation_url", e.CodeMessage.Extensions["documentation_url"], any("https://docs.github.com/rest/reference/issues#create-a-label"))
			eq(t, "body length", len(e.Body), 179)
		}},
	{file: "37-envoy-503-upstream-connect-error.txt", ct: "text/plain", status: 503, header: map[string]string{"Server": "envoy"},
		kind: ErrServiceUnavailable, title: "-",
		check: func(t *testing.T, e *Error) {
			if !e.Temporary() {
				t.Error("envoy 503 should be Temporary")
			}
		}},
	{file: "39-cloudflare-403-attention-required.html", ct: "text/html; charset=UTF-8", status: 403, header: map[string]string{"Server": "cloudflare"},
		kind: ErrForbidden, title: "-",
		check: func(t *testing.T, e *Error) {
			eq(t, "body length", len(e.Body), 12372)
			eq(t, "truncated", e.BodyTruncated, false)
			if strings.Contains(e.Error(), "<") {
				t.Errorf("HTML leaks into Error(): %s", e.Error())
			}
		}},
	{file: "41-empty-body.txt", ct: "", status: 403,
		kind: ErrForbidden, title: "-",
		check: func(t *testing.T, e *Error) {
			eq(t, "body length", len(e.Body), 0)
			eq(t, "Content-Type", e.Header.Get("Content-Type"), "")
			eq(t, "Error()", e.Error(), "memberplatform: GET /41-empty-body.txt: 403 Forbidden")
		}},
	{file: "43-salesforce-400-top-level-array.json", ct: "application/json", status: 400,
		kind: ErrBadRequest, title: "-", detail: "-"},
	{file: "45-fastapi-404-detail-only.json", ct: "application/json", status: 404,
		kind: ErrNotFound, title: "-",
		check: func(t *testing.T, e *Error) {
			eq(t, "Error()", e.Error(), "memberplatform: GET /45-fastapi-404-detail-only.json: 404 Not Found")
		}},
}

// TestRealErrorBodies serves every file of the shared real-world corpus
// through an httptest server with its row's content type, status and
// headers, and decodes the response with FromResponse.
func TestRealErrorBodies(t *testing.T) {
	dir := realBodiesDir(t)
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string]fixture{}
	for _, fx := range realBodies {
		byFile[fx.file] = fx
	}
	for _, f := range files {
		if _, ok := byFile[f.Name()]; !ok && f.Name() != "README.md" {
			t.Errorf("%s is in the corpus but not in the table", f.Name())
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fx := byFile[strings.TrimPrefix(r.URL.Path, "/")]
		body, err := os.ReadFile(filepath.Join(dir, fx.file))
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		for k, v := range fx.headers() {
			w.Header()[k] = v
		}
		w.WriteHeader(fx.status)
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}

	for _, fx := range realBodies {
		t.Run(fx.file, func(t *testing.T) {
			resp, err := hc.Get(srv.URL + "/" + fx.file + "?api_key=hunter2")
			if err != nil {
				t.Fatal(err)
			}
			fx.verify(t, FromResponse(resp), fx.body(t, dir), "GET /"+fx.file)
		})
	}
}

func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

// checkFields compares Field and Message of each field error, and Pointer
// where the wanted one sets it.
func checkFields(t *testing.T, got, want []FieldError) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("FieldErrors() = %q, want %q", got, want)
		return
	}
	for i := range want {
		if got[i].Field != want[i].Field || got[i].Message != want[i].Message || (want[i].Pointer != "" && got[i].Pointer != want[i].Pointer) {
			t.Errorf("FieldErrors()[%d] = %#v, want %#v", i, got[i], want[i])
		}
	}
}

// checkOneLine asserts Error() is a single printable line of at most max
// bytes: no control character, line separator or bidirectional override.
func checkOneLine(t *testing.T, s string, max int) {
	t.Helper()
	if !strings.HasPrefix(s, "memberplatform: ") || !utf8.ValidString(s) || len(s) > max {
		t.Errorf("Error() lacks the package prefix, is not UTF-8 or is over %d bytes: %q", max, s)
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || (r >= '\u202A' && r <= '\u202E') || (r >= '\u2066' && r <= '\u2069') {
			t.Errorf("Error() holds %U: %q", r, s)
			return
		}
	}
}
