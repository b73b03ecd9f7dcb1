package client_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// Redaction by meaning: the token a request carried is recognised however a
// server spells it, in every place the SDK hands text back. meaningToken
// holds the characters encoders escape.
const meaningToken = "tok/echo+0123456789=abcdef"

// spelling writes s the way some server might: each returns the spelled
// text and the parts of it that must not survive.
type spelling struct {
	name  string
	spell func(s string) string
	// header reports whether the spelling is a valid header field name
	// part (no '/', '=', ';', '\\'; base64 is not: net/http changes the
	// case of a header name's letters).
	header bool
}

func perChar(s string, f func(i int, c byte) string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteString(f(i, s[i]))
	}
	return b.String()
}

func escapeSpecials(s string, f func(c byte) string) string {
	return perChar(s, func(_ int, c byte) string {
		if strings.IndexByte("/+=", c) >= 0 {
			return f(c)
		}
		return string(c)
	})
}

var htmlNames = map[byte]string{'/': "&sol;", '+': "&plus;", '=': "&equals;"}

var spellings = []spelling{
	{name: "raw", spell: func(s string) string { return s }},
	{name: "json \\u every character", spell: func(s string) string {
		return perChar(s, func(i int, c byte) string {
			if i%2 == 0 {
				return fmt.Sprintf(`\u%04x`, c)
			}
			return fmt.Sprintf(`\u%04X`, c)
		})
	}},
	{name: "json \\/", spell: func(s string) string { return strings.ReplaceAll(s, "/", `\/`) }},
	{name: "html named", spell: func(s string) string { return escapeSpecials(s, func(c byte) string { return htmlNames[c] }) }},
	{name: "html decimal", spell: func(s string) string {
		return escapeSpecials(s, func(c byte) string { return fmt.Sprintf("&#%d;", c) })
	}},
	{name: "html hex", spell: func(s string) string {
		return escapeSpecials(s, func(c byte) string { return fmt.Sprintf("&#x%X;", c) })
	}},
	{name: "percent upper", header: true, spell: func(s string) string {
		return escapeSpecials(s, func(c byte) string { return fmt.Sprintf("%%%02X", c) })
	}},
	{name: "percent lower", header: true, spell: func(s string) string {
		return escapeSpecials(s, func(c byte) string { return fmt.Sprintf("%%%02x", c) })
	}},
	{name: "mixed", spell: func(s string) string {
		return perChar(s, func(i int, c byte) string {
			switch i % 5 {
			case 0:
				return fmt.Sprintf(`\u%04X`, c)
			case 1:
				return fmt.Sprintf("&#%d;", c)
			case 2:
				return fmt.Sprintf("%%%02x", c)
			case 3:
				return fmt.Sprintf("&#X%02x;", c)
			}
			return string(c)
		})
	}},
	{name: "json-escaped html", spell: func(s string) string {
		return escapeSpecials(s, func(c byte) string { return fmt.Sprintf(`\u0026#%d;`, c) })
	}},
	{name: "base64 std padded, offset 1", spell: func(s string) string { return base64.StdEncoding.EncodeToString([]byte("x" + s)) }},
	{name: "base64 url unpadded, offset 2", spell: func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte("xy" + s + "z")) }},
	{name: "base64 std inside a longer run", spell: func(s string) string {
		return base64.StdEncoding.EncodeToString([]byte(`{"session":"` + s + `","n":1}`))
	}},
	// base64 as the outer layer around another spelling.
	{name: "base64 of json \\/", spell: func(s string) string {
		return base64.StdEncoding.EncodeToString([]byte(`{"auth":"Bearer ` + strings.ReplaceAll(s, "/", `\/`) + `"}`))
	}},
	{name: "base64 url unpadded of html decimal, offset 1", spell: func(s string) string {
		return base64.RawURLEncoding.EncodeToString([]byte("x" + escapeSpecials(s, func(c byte) string { return fmt.Sprintf("&#%d;", c) })))
	}},
	{name: "base64 of percent, offset 2", spell: func(s string) string {
		return base64.StdEncoding.EncodeToString([]byte("t=" + escapeSpecials(s, func(c byte) string { return fmt.Sprintf("%%%02X", c) })))
	}},
	{name: "base64 of base64", spell: func(s string) string {
		return base64.RawStdEncoding.EncodeToString([]byte(base64.StdEncoding.EncodeToString([]byte("xy" + s))))
	}},
}

// decodesToToken reports whether seen, or any base64 run in it decoded at
// any alignment (two layers deep), shows meaningToken raw, JSON-, HTML- or
// percent-unescaped: the standard library's decoders are the oracle.
func decodesToToken(seen string, layers int) bool {
	var unquoted string
	_ = json.Unmarshal([]byte(`"`+strings.ReplaceAll(seen, `"`, `\"`)+`"`), &unquoted)
	unescaped, _ := url.QueryUnescape(seen)
	for _, form := range []string{seen, strings.ReplaceAll(seen, `\/`, "/"), unquoted, html.UnescapeString(seen), unescaped} {
		if strings.Contains(form, meaningToken) {
			return true
		}
	}
	if layers == 0 {
		return false
	}
	isBase64 := func(r rune) bool {
		return r < 128 && (r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("+/-_", r))
	}
	for _, run := range strings.FieldsFunc(seen, func(r rune) bool { return !isBase64(r) }) {
		run = strings.NewReplacer("-", "+", "_", "/").Replace(run)
		for align := 0; align < 4 && align < len(run); align++ {
			chars := run[align:]
			if len(chars)%4 == 1 {
				chars = chars[:len(chars)-1]
			}
			if decoded, err := base64.RawStdEncoding.DecodeString(chars); err == nil && decodesToToken(string(decoded), layers-1) {
				return true
			}
		}
	}
	return false
}

// TestBase64OverJSONEscapedEcho: a server (PHP's json_encode writes "\/")
// echoes the request's Authorization JSON-escaped then base64-encoded, in a
// problem's detail and in headers. Neither the error, however printed, nor
// its Header, nor the response WithResponseInto hands back, nor the logs
// hold the token in any form the standard library can decode.
func TestBase64OverJSONEscapedEcho(t *testing.T) {
	t.Parallel()
	echo := func(r *http.Request) string {
		return base64.StdEncoding.EncodeToString([]byte(`{"auth":"` + strings.ReplaceAll(r.Header.Get("Authorization"), "/", `\/`) + `"}`))
	}
	var calls atomic.Int64
	srv, transport := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Debug", "debug="+echo(r))
		w.Header().Set("X-Request-Id", "req-"+echo(r))
		if calls.Add(1) == 1 { // the first call fails, the second succeeds
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"title":"FORBIDDEN","detail":"debug=`+echo(r)+`","serviceErrors":[{"detail":"`+echo(r)+`","pointer":"/x"}]}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"user_01E4ZCR3C56J083X43JQXF3JK5","email":"a@b.c"}`)
	})
	logs := newLogCapture(slog.LevelDebug)
	c := newClient(t, option.WithBaseURL(srv.URL), transport, option.WithTokenSource(client.StaticToken(meaningToken)),
		option.WithMaxRetries(0), option.WithLogger(slog.New(logs)))

	var failed *http.Response
	err := updateFirstName(t.Context(), c, option.WithResponseInto(&failed))
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusForbidden {
		t.Fatalf("err = %v, want the 403", err)
	}
	var ok *http.Response
	if err := updateFirstName(t.Context(), c, option.WithResponseInto(&ok)); err != nil {
		t.Fatal(err)
	}
	seen := everything(err) + fmt.Sprintf("%+v\n%v\n%v\n%v\n", err, apiErr.Header, failed.Header, ok.Header) + logs.rendered()
	if decodesToToken(seen, 2) {
		t.Fatalf("the token is decodable from:\n%s", seen)
	}
	if !strings.HasPrefix(apiErr.Detail(), "debug=") || !strings.Contains(apiErr.Detail(), redactedValue) ||
		!strings.HasPrefix(ok.Header.Get("X-Debug"), "debug=") || !strings.Contains(ok.Header.Get("X-Debug"), redactedValue) {
		t.Errorf("want the echo replaced and the rest kept: Detail %q, X-Debug %q", apiErr.Detail(), ok.Header.Get("X-Debug"))
	}
}

// leaks returns what of the spelled token is left in seen: the token, its
// spelling, or (for base64) the middle of its spelling.
func leaks(seen, spelled string) []string {
	var out []string
	for _, s := range []string{meaningToken, spelled, spelled[len(spelled)/3 : 2*len(spelled)/3]} {
		if strings.Contains(seen, s) {
			out = append(out, s)
		}
	}
	return out
}

// echoClient starts a server that answers through respond, given the
// bearer token as sp spells it, and returns a client of it that sends
// meaningToken and logs at Debug into logs, and that spelling.
func echoClient(t *testing.T, sp spelling, respond func(w http.ResponseWriter, r *http.Request, spelled string)) (c *client.Client, logs *logCapture, spelled string) {
	t.Helper()
	spelled = sp.spell(meaningToken)
	srv, transport := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer "+meaningToken {
			t.Errorf("Authorization = %q, want the meaning token", got)
		}
		respond(w, r, spelled)
	})
	logs = newLogCapture(slog.LevelDebug)
	c = newClient(t, option.WithBaseURL(srv.URL), transport, option.WithTokenSource(client.StaticToken(meaningToken)),
		option.WithMaxRetries(0), option.WithLogger(slog.New(logs)))
	return c, logs, spelled
}

func jsonString(s string) string { // s already holds its own JSON escapes
	return `"` + s + `"`
}

// TestEchoInErrorsByMeaning: in a problem's detail, a field error's detail
// and pointer, serviceMeta and extension KEYS and values, the request ID,
// a header's value and name, the body snippet and the log records.
func TestEchoInErrorsByMeaning(t *testing.T) {
	t.Parallel()
	for _, sp := range spellings {
		t.Run(sp.name, func(t *testing.T) {
			t.Parallel()
			c, logs, spelled := echoClient(t, sp, func(w http.ResponseWriter, r *http.Request, spelled string) {
				w.Header().Set("X-Request-Id", "req-"+spelled)
				w.Header().Set("X-Echo", "value "+spelled)
				if sp.header {
					w.Header().Set("X-Echo-0"+spelled, "name")
				}
				w.Header().Set("Content-Type", "application/problem+json")
				w.WriteHeader(http.StatusForbidden)
				_, _ = io.WriteString(w, `{"title":"FORBIDDEN","detail":`+jsonString("token "+spelled+" refused")+
					`,"serviceErrors":[{"detail":`+jsonString(spelled)+`,"pointer":`+jsonString("/"+spelled)+`}]`+
					`,"serviceMeta":{`+jsonString(spelled)+`:`+jsonString(spelled)+`}`+
					`,`+jsonString(spelled)+`:{"errors":{`+jsonString(spelled)+`:"x"}}}`)
			})
			err := updateFirstName(t.Context(), c)
			var apiErr *apierrors.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusForbidden {
				t.Fatalf("err = %v, want the 403", err)
			}
			seen := everything(err) + fmt.Sprintf("%v %#v %#v", apiErr.Header, apiErr.Problem.ServiceMeta, apiErr.Problem.Extensions) + logs.rendered()
			if left := leaks(seen, spelled); len(left) > 0 {
				t.Fatalf("%q left in:\n%s", left, seen)
			}
			// (A base64 spelling keeps the characters around the token's.)
			if !strings.HasPrefix(apiErr.Detail(), "token ") || !strings.Contains(apiErr.Detail(), redactedValue) || !strings.HasSuffix(apiErr.Detail(), " refused") ||
				!strings.HasPrefix(apiErr.RequestID, "req-") || !strings.Contains(apiErr.RequestID, redactedValue) {
				t.Errorf("Detail = %q, RequestID = %q: the rest of the text must stay", apiErr.Detail(), apiErr.RequestID)
			}
			if sp.header && apiErr.Header.Get("X-Echo-0"+redactedValue) != "name" {
				t.Errorf("the header named after the token is not renamed: %v", apiErr.Header)
			}
		})
	}
}

// TestEchoInCapturedResponsesByMeaning: through option.WithResponseInto,
// in the final response's headers and trailers and in every response of
// the redirect chain; and in the successful call's debug log record.
func TestEchoInCapturedResponsesByMeaning(t *testing.T) {
	t.Parallel()
	for _, sp := range spellings {
		t.Run(sp.name, func(t *testing.T) {
			t.Parallel()
			c, logs, spelled := echoClient(t, sp, func(w http.ResponseWriter, r *http.Request, spelled string) {
				if !strings.HasSuffix(r.URL.Path, "/final") {
					w.Header().Set("X-Hop", "hop "+spelled)
					if sp.header {
						w.Header().Set("X-Hop-0"+spelled, "name")
					}
					http.Redirect(w, r, r.URL.Path+"/final", http.StatusTemporaryRedirect)
					return
				}
				w.Header().Set("Trailer", "X-Trail")
				w.Header().Set("X-Request-Id", spelled)
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"id":"user_01E4ZCR3C56J083X43JQXF3JK5","email":"a@b.c"}`)
				w.Header().Set("X-Trail", "trailer "+spelled)
			})
			var resp *http.Response
			if err := updateFirstName(t.Context(), c, option.WithResponseInto(&resp)); err != nil {
				t.Fatal(err)
			}
			if resp.Request == nil || resp.Request.Response == nil {
				t.Fatal("the redirect chain is not in the captured response")
			}
			hop := resp.Request.Response
			seen := fmt.Sprintf("%v\n%v\n%v\n%v\n%v\n", resp.Header, resp.Trailer, hop.Header, hop.Trailer, resp.Request.Header) + logs.rendered()
			if left := leaks(seen, spelled); len(left) > 0 {
				t.Fatalf("%q left in:\n%s", left, seen)
			}
			if !strings.HasPrefix(resp.Trailer.Get("X-Trail"), "trailer ") || !strings.Contains(resp.Trailer.Get("X-Trail"), redactedValue) ||
				!strings.HasPrefix(hop.Header.Get("X-Hop"), "hop ") || !strings.Contains(hop.Header.Get("X-Hop"), redactedValue) {
				t.Errorf("want the token replaced and the rest kept:\n%s", seen)
			}
		})
	}
}

// TestRedactByMeaning: (*errors.Error).Redact with a caller's own secret
// reaches keys, field names and every spelling.
func TestRedactByMeaning(t *testing.T) {
	t.Parallel()
	for _, sp := range spellings {
		spelled := sp.spell(meaningToken)
		body := `{"code":"VALIDATION_ERROR","message":` + jsonString("no "+spelled) + `,"errors":[{"field":` + jsonString(spelled) + `,"message":"bad"}],` +
			`"details":{` + jsonString(spelled) + `:"x"}}`
		e := apierrors.Decode(http.StatusBadRequest, http.Header{"X-Request-Id": {spelled}, "X-" + spelled: {"v"}}, []byte(body))
		e.Redact(meaningToken)
		seen := e.Error() + string(e.Body) + fmt.Sprintf("%v %#v", e.Header, e.CodeMessage) + e.RequestID
		if left := leaks(seen, spelled); len(left) > 0 {
			t.Errorf("%s: %q left in:\n%s", sp.name, left, seen)
		}
	}
}
