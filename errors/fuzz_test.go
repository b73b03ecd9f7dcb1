package errors

import (
	stderrors "errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

// The seed corpora live in testdata/fuzz/<FuzzName>/ and run with every
// `go test`; `go test -run=^$ -fuzz=FuzzDecode ./errors/` explores further.

// FuzzDecode feeds arbitrary statuses, content types, Retry-After values and
// bodies to Decode and FromResponse: they must never panic, must keep the
// HTTP status, and Error() must stay one bounded, printable line.
func FuzzDecode(f *testing.F) {
	f.Add(400, "application/problem+json", "", []byte(`{"type":"https://x/bad-request","title":"BAD_REQUEST","status":400,"serviceCode":"40000001","serviceErrors":[{"detail":"d","pointer":"/email"}]}`))
	f.Add(404, "application/json", "5", []byte(`{"code":"MEMBER_NOT_FOUND","message":"m","errors":[{"field":"f","message":"m"}]}`))
	f.Fuzz(func(t *testing.T, status int, contentType, retryAfter string, body []byte) {
		h := http.Header{}
		h.Set("Content-Type", contentType)
		h.Set("Retry-After", retryAfter)
		e := Decode(status, h, body)
		checkDecoded(t, e, status)

		r := FromResponse(&http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(string(body)))})
		checkDecoded(t, r, status)
		if len(body) <= MaxBodySnippet && (r.Title() != e.Title() || r.Detail() != e.Detail() || len(r.FieldErrors()) != len(e.FieldErrors())) {
			t.Errorf("FromResponse and Decode disagree: %q vs %q", r.Error(), e.Error())
		}
	})
}

func checkDecoded(t *testing.T, e *Error, status int) {
	t.Helper()
	if e.StatusCode != status {
		t.Fatalf("StatusCode = %d, want %d", e.StatusCode, status)
	}
	if e.Problem != nil && e.CodeMessage != nil {
		t.Fatal("both formats decoded")
	}
	checkOneLine(t, e.Error(), 4096)
	if e.RetryAfter < 0 {
		t.Fatalf("RetryAfter = %v", e.RetryAfter)
	}
	for _, fe := range e.FieldErrors() {
		_ = fe.String()
	}
	if k := e.Kind(); k != nil && !stderrors.Is(e, k) {
		t.Fatalf("Kind() = %v but errors.Is is false", k)
	}
	_ = e.Temporary()
	_ = e.GoString()
}

// FuzzFieldFromPointer: never panics; a query parameter's pointer gives its
// name, another string that is not a JSON pointer comes back unchanged, and one-token pointers without escapes give the token.
func FuzzFieldFromPointer(f *testing.F) {
	for _, s := range []string{"/email", "/permissions/2", "#/a~1b", "/a/0/b", "", "/", "~", "email"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got := FieldFromPointer(p)
		if name, ok := strings.CutPrefix(p, "?"); ok && name != "" {
			if got != name {
				t.Fatalf("FieldFromPointer(%q) = %q, want the query parameter %q", p, got, name)
			}
			return
		}
		if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "#/") && got != p {
			t.Fatalf("FieldFromPointer(%q) = %q, want it unchanged", p, got)
		}
		if tok, ok := strings.CutPrefix(p, "/"); ok && !strings.ContainsAny(tok, "/~") && got != tok {
			t.Fatalf("FieldFromPointer(%q) = %q, want %q", p, got, tok)
		}
	})
}

// FuzzOneLine: the folded text is valid UTF-8, has no control characters
// and respects the bound (plus the ellipsis).
func FuzzOneLine(f *testing.F) {
	f.Add("line one\nline two\x1b[31m\u202e", 10)
	f.Add("é\xff", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		got := oneLine(s, n)
		if !utf8.ValidString(got) || len(got) > n+len("…") {
			t.Fatalf("oneLine(%q, %d) = %q", s, n, got)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("oneLine(%q) holds %U", s, r)
			}
		}
	})
}
