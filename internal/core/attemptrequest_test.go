package core

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"testing"
)

// newAttemptRequest builds the request's URL from its parts when the path
// needs no escaping. The oracle is what it replaces: parsing the full URL
// text (retryablehttp.NewRequestWithContext, as for a path that is not
// plain). Both must give the same URL, Host and body for every base URL,
// template, parameter and query, whichever way each case goes.
func TestAttemptRequestURLMatchesParsing(t *testing.T) {
	tests := []struct {
		name, base, tmpl string
		params           [2]string
		query            url.Values
		direct           bool
	}{
		{"plain", "http://127.0.0.1:8080", "/auth/access-management/users/{userId}", [2]string{"user_01E4ZCR3C56J083X43JQXF3JK5"}, nil, true},
		{"base path and slash", "https://api.example.com/v1/", "/payment-methods/{id}", [2]string{"6f1c2a4e-8b3d-4f5a-9c7e-2d1b0a9f8e7d"}, nil, true},
		{"two params", "https://api.example.com", "/orgs/{o}/roles/{r}/permissions", [2]string{"org_1", "org-admin"}, nil, true},
		{"sub-delimiters kept", "https://api.example.com", "/x/{id}", [2]string{"a:b@c$d&e+f=g~h"}, nil, true},
		{"sub-delimiters escaped", "https://api.example.com", "/x/{id}", [2]string{"a,b;c"}, nil, false},
		{"query", "https://api.example.com", "/x/{id}", [2]string{"a"}, url.Values{"q": {"a b", "é"}, "z": {"1"}}, true},
		{"empty port", "http://example.com:", "/x/{id}", [2]string{"a"}, nil, true},
		{"ipv6", "http://[::1]:9000", "/x/{id}", [2]string{"a"}, nil, true},
		{"escaped slash", "https://api.example.com", "/x/{id}", [2]string{"a/b"}, nil, false},
		{"escaped space", "https://api.example.com", "/x/{id}", [2]string{"a b"}, nil, false},
		{"dot segments", "https://api.example.com", "/x/{id}/{id2}", [2]string{".", ".."}, nil, false},
		{"question mark", "https://api.example.com", "/x/{id}", [2]string{"a?b#c"}, nil, false},
		{"unicode", "https://api.example.com", "/x/{id}", [2]string{"é"}, nil, false},
		{"escaped base path", "https://api.example.com/a%2Fb", "/x/{id}", [2]string{"a"}, nil, false},
		{"escaped template", "https://api.example.com", "/x%20y/{id}", [2]string{"a"}, nil, false},
		{"ipv6 zone", "http://[fe80::1%25en0]:8080", "/x/{id}", [2]string{"a"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := url.Parse(tt.base)
			if err != nil {
				t.Fatal(err)
			}
			s := &Settings{BaseURL: base, Query: tt.query}
			op := &Operation{Name: "test.Op", Method: http.MethodPut, Path: tt.tmpl}
			req, err := newRequest(s, &Call{Op: op, PathParams: tt.params, Body: map[string]int{"a": 1}})
			if err != nil {
				t.Fatal(err)
			}
			if req.direct != tt.direct {
				t.Errorf("direct = %v, want %v (path %q)", req.direct, tt.direct, req.path)
			}
			ctx := context.Background()
			got, gotErr := newAttemptRequest(ctx, op.Method, base, &req, req.body)
			parsed := req
			parsed.direct = false
			want, wantErr := newAttemptRequest(ctx, op.Method, base, &parsed, req.body)
			if (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("error %v, parsing gives %v", gotErr, wantErr)
			}
			if wantErr != nil {
				return
			}
			if !reflect.DeepEqual(got.URL, want.URL) || got.Host != want.Host || got.URL.String() != want.URL.String() {
				t.Errorf("URL %#v (host %q), parsing gives %#v (host %q)", got.URL, got.Host, want.URL, want.Host)
			}
			if got.Method != want.Method || got.ContentLength != want.ContentLength || got.ContentLength != int64(len(req.body)) ||
				got.Proto != want.Proto || len(got.Header) != 0 || got.Context() != ctx {
				t.Errorf("request %s %d %s, parsing gives %s %d %s", got.Method, got.ContentLength, got.Proto, want.Method, want.ContentLength, want.Proto)
			}
			if b, err := got.BodyBytes(); err != nil || string(b) != `{"a":1}` {
				t.Errorf("body %q, %v", b, err)
			}
		})
	}
}
