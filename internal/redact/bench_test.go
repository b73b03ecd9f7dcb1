package redact

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkBody searches an error body of 1,000 field errors that holds no
// secret, with the credentials of a bearer-token call: the cost every
// error response pays.
func BenchmarkBody(b *testing.B) {
	const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzdmMtYmlsbGluZyIsImV4cCI6NDEwMjQ0NDgwMH0.c2lnbmF0dXJlLWJ5dGVzLWZvci1iZW5jaG1hcmtpbmctb25seQ"
	var body strings.Builder
	body.WriteString(`{"title":"Unprocessable Entity","serviceErrors":[`)
	for i := range 1000 {
		body.WriteString(`{"detail":"permission resource-` + strconv.Itoa(i) + `.items:read is unknown","pointer":"/permissions/` + strconv.Itoa(i) + `"},`)
	}
	body.WriteString(`{}]}`)
	text := []byte(body.String())
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		set := New("Bearer "+jwt, jwt)
		if got := set.Bytes(text); len(got) != len(text) {
			b.Fatal("changed")
		}
	}
}

// BenchmarkBase64Body searches an error body of 88 KB that is one base64
// blob (a debug dump) holding no secret: every run is decoded at its four
// alignments and searched, the most a body without a secret costs.
func BenchmarkBase64Body(b *testing.B) {
	const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzdmMtYmlsbGluZyIsImV4cCI6NDEwMjQ0NDgwMH0.c2lnbmF0dXJlLWJ5dGVzLWZvci1iZW5jaG1hcmtpbmctb25seQ"
	var dump strings.Builder
	for i := range 1000 {
		dump.WriteString(`{"detail":"permission resource-` + strconv.Itoa(i) + `.items:read is unknown","pointer":"\/permissions\/` + strconv.Itoa(i) + `"},`)
	}
	text := []byte(`{"detail":"debug=` + base64.StdEncoding.EncodeToString([]byte(dump.String())) + `"}`)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		set := New("Bearer "+jwt, jwt)
		if got := set.Bytes(text); len(got) != len(text) {
			b.Fatal("changed")
		}
	}
}
