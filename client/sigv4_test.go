package client

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// This file checks the SigV4 signing against an implementation written here
// from the specification (canonical request, string to sign, derived key),
// with crypto/hmac and crypto/sha256 only: never by calling the SDK's own
// signer to produce the expected value.

// sigInput is everything a SigV4 signature covers.
type sigInput struct {
	Method        string
	EscapedPath   string // the request's escaped path, such as /v1/auth/token
	Query         url.Values
	Header        func(name string) []string // values of a lower-case header name
	SignedHeaders []string                   // lower-case, sorted
	PayloadHash   string
	AmzDate       string // 20060102T150405Z
	AccessKey     string
	SecretKey     string
	Region        string
	Service       string
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// uriEncode encodes every byte except the unreserved characters
// A-Z a-z 0-9 - _ . ~ (and '/' when keepSlash), as the spec requires.
func uriEncode(s string, keepSlash bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			b.WriteByte(c)
		case c == '/' && keepSlash:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// canonicalRequest builds the SigV4 canonical request.
func canonicalRequest(in sigInput) string {
	path := in.EscapedPath
	if path == "" {
		path = "/"
	}
	// Services other than S3 encode each segment twice: the escaped path is
	// encoded once more.
	uri := uriEncode(path, true)

	keys := make([]string, 0, len(in.Query))
	for k := range in.Query {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var q []string
	for _, k := range keys {
		vs := slices.Clone(in.Query[k])
		sort.Strings(vs)
		for _, v := range vs {
			q = append(q, uriEncode(k, false)+"="+uriEncode(v, false))
		}
	}

	var headers strings.Builder
	for _, h := range in.SignedHeaders {
		vals := in.Header(h)
		trimmed := make([]string, len(vals))
		for i, v := range vals {
			trimmed[i] = strings.Join(strings.Fields(v), " ")
		}
		headers.WriteString(h + ":" + strings.Join(trimmed, ",") + "\n")
	}
	return strings.Join([]string{
		in.Method, uri, strings.Join(q, "&"), headers.String(),
		strings.Join(in.SignedHeaders, ";"), in.PayloadHash,
	}, "\n")
}

// expectedSignature returns the hex signature and the credential scope.
func expectedSignature(in sigInput) (sig, scope string) {
	date := in.AmzDate[:8]
	scope = date + "/" + in.Region + "/" + in.Service + "/aws4_request"
	stringToSign := "AWS4-HMAC-SHA256\n" + in.AmzDate + "\n" + scope + "\n" + sha256Hex([]byte(canonicalRequest(in)))
	kDate := hmacSHA256([]byte("AWS4"+in.SecretKey), date)
	kRegion := hmacSHA256(kDate, in.Region)
	kService := hmacSHA256(kRegion, in.Service)
	kSigning := hmacSHA256(kService, "aws4_request")
	return hex.EncodeToString(hmacSHA256(kSigning, stringToSign)), scope
}

func expectedAuthorization(in sigInput) string {
	sig, scope := expectedSignature(in)
	return "AWS4-HMAC-SHA256 Credential=" + in.AccessKey + "/" + scope +
		", SignedHeaders=" + strings.Join(in.SignedHeaders, ";") + ", Signature=" + sig
}

// The reference implementation reproduces AWS's published test vector
// "get-vanilla" (aws-sig-v4-test-suite), so it is itself correct.
func TestSigV4ReferenceImplementationMatchesAWSVector(t *testing.T) {
	h := http.Header{"Host": {"example.amazonaws.com"}, "X-Amz-Date": {"20150830T123600Z"}}
	got := expectedAuthorization(sigInput{
		Method: "GET", EscapedPath: "/",
		Header:        func(n string) []string { return h.Values(n) },
		SignedHeaders: []string{"host", "x-amz-date"},
		PayloadHash:   "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		AmzDate:       "20150830T123600Z",
		AccessKey:     "AKIDEXAMPLE", SecretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
		Region: "us-east-1", Service: "service",
	})
	want := "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
	if got != want {
		t.Fatalf("reference SigV4 implementation disagrees with AWS's get-vanilla vector:\n got %s\nwant %s", got, want)
	}
}

const (
	testAccessKey    = "AKIDEXAMPLE"
	testSecretKey    = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
	testSessionToken = "FQoGZXIvYXdzEXAMPLESESSIONTOKEN//sess+ion=="
)

func testCreds() aws.CredentialsProvider {
	return credentials.NewStaticCredentialsProvider(testAccessKey, testSecretKey, testSessionToken)
}

func fixedNow(t time.Time) func() time.Time { return func() time.Time { return t } }

// Known answer: fixed time, credentials and body give exactly this
// Authorization header.
func TestSigV4KnownAnswer(t *testing.T) {
	src, err := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "ap-southeast-2"})
	if err != nil {
		t.Fatal(err)
	}
	src.now = fixedNow(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))

	body := []byte(`{"grant":"service","scope":["users:write"]}`)
	req, err := http.NewRequest(http.MethodPost, "https://api.example.com/v1/auth/token?b=2&a=1", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Custom", "  spaced   value ")
	req.Header.Set("User-Agent", "memberplatform-go/test") // not signed by design
	if err := src.sign(req, body); err != nil {
		t.Fatal(err)
	}

	if got := req.Header.Get("X-Amz-Date"); got != "20240506T070809Z" {
		t.Fatalf("X-Amz-Date = %q", got)
	}
	if got := req.Header.Get("X-Amz-Security-Token"); got != testSessionToken {
		t.Fatalf("X-Amz-Security-Token = %q, want the session token", got)
	}
	hdr := http.Header{
		"Host":                 {"api.example.com"},
		"Content-Length":       {strconv.Itoa(len(body))},
		"Content-Type":         {"application/json"},
		"X-Amz-Date":           {"20240506T070809Z"},
		"X-Amz-Security-Token": {testSessionToken},
		"X-Custom":             {"  spaced   value "},
	}
	want := expectedAuthorization(sigInput{
		Method: "POST", EscapedPath: "/v1/auth/token", Query: url.Values{"a": {"1"}, "b": {"2"}},
		Header:        func(n string) []string { return hdr.Values(n) },
		SignedHeaders: []string{"content-length", "content-type", "host", "x-amz-date", "x-amz-security-token", "x-custom"},
		PayloadHash:   sha256Hex(body),
		AmzDate:       "20240506T070809Z",
		AccessKey:     testAccessKey, SecretKey: testSecretKey,
		Region: "ap-southeast-2", Service: "execute-api",
	})
	if got := req.Header.Get("Authorization"); got != want {
		t.Fatalf("Authorization:\n got %s\nwant %s", got, want)
	}
	// The same value as a literal, computed a third way (a Python
	// hmac/hashlib script written from the SigV4 spec), so a mistake shared
	// by the SDK's signer and expectedAuthorization cannot pass.
	const literal = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240506/ap-southeast-2/execute-api/aws4_request, " +
		"SignedHeaders=content-length;content-type;host;x-amz-date;x-amz-security-token;x-custom, " +
		"Signature=60ad4225cebba9337795dba4ed8a98b5afd514994b44772a6d32c89a0fa8eb66"
	if got := req.Header.Get("Authorization"); got != literal {
		t.Fatalf("Authorization:\n got %s\nwant %s", got, literal)
	}
}

// With no body the payload hash is SHA-256 of nothing (the signature
// computed independently with emptyHash must match).
func TestSigV4KnownAnswerEmptyBody(t *testing.T) {
	const emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	src, err := NewSigV4TokenSource(SigV4Config{
		Credentials: credentials.NewStaticCredentialsProvider(testAccessKey, testSecretKey, ""),
		Region:      "us-east-1", Service: "custom-svc",
	})
	if err != nil {
		t.Fatal(err)
	}
	src.now = fixedNow(time.Date(2015, 8, 30, 12, 36, 0, 0, time.UTC))
	req, err := http.NewRequest(http.MethodPost, "https://api.example.com/auth/token", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.sign(req, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := req.Header["X-Amz-Security-Token"]; ok {
		t.Fatal("X-Amz-Security-Token sent without a session token")
	}
	hdr := http.Header{"Host": {"api.example.com"}, "X-Amz-Date": {"20150830T123600Z"}}
	want := expectedAuthorization(sigInput{
		Method: "POST", EscapedPath: "/auth/token",
		Header:        func(n string) []string { return hdr.Values(n) },
		SignedHeaders: []string{"host", "x-amz-date"},
		PayloadHash:   emptyHash,
		AmzDate:       "20150830T123600Z",
		AccessKey:     testAccessKey, SecretKey: testSecretKey,
		Region: "us-east-1", Service: "custom-svc",
	})
	if got := req.Header.Get("Authorization"); got != want {
		t.Fatalf("Authorization:\n got %s\nwant %s", got, want)
	}
}

// sigV4Verifier checks SigV4 signatures the way the platform would: from
// the received request alone and the secret it knows.
type sigV4Verifier struct {
	secret, region, service, sessionToken string
}

// verify returns the signed header names, or an error.
func (v sigV4Verifier) verify(r *http.Request, body []byte) ([]string, error) {
	auth := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return nil, errors.New("not a SigV4 Authorization header")
	}
	fields := map[string]string{}
	for part := range strings.SplitSeq(rest, ",") {
		k, val, _ := strings.Cut(strings.TrimSpace(part), "=")
		fields[k] = val
	}
	cred := strings.Split(fields["Credential"], "/")
	if len(cred) != 5 || cred[4] != "aws4_request" {
		return nil, fmt.Errorf("bad credential scope %q", fields["Credential"])
	}
	amzDate := r.Header.Get("X-Amz-Date")
	if len(amzDate) != 16 || cred[1] != amzDate[:8] {
		return nil, fmt.Errorf("X-Amz-Date %q does not match scope date %q", amzDate, cred[1])
	}
	if cred[2] != v.region || cred[3] != v.service {
		return nil, fmt.Errorf("scope %s/%s, want %s/%s", cred[2], cred[3], v.region, v.service)
	}
	signed := strings.Split(fields["SignedHeaders"], ";")
	for _, must := range []string{"host", "x-amz-date"} {
		if !slices.Contains(signed, must) {
			return nil, fmt.Errorf("%s is not signed", must)
		}
	}
	if v.sessionToken != "" {
		if r.Header.Get("X-Amz-Security-Token") != v.sessionToken {
			return nil, errors.New("X-Amz-Security-Token missing or wrong")
		}
		if !slices.Contains(signed, "x-amz-security-token") {
			return nil, errors.New("x-amz-security-token is not signed")
		}
	}
	header := func(n string) []string {
		switch n {
		case "host":
			return []string{r.Host}
		case "content-length":
			return []string{strconv.FormatInt(r.ContentLength, 10)}
		}
		return r.Header.Values(n)
	}
	want, _ := expectedSignature(sigInput{
		Method: r.Method, EscapedPath: r.URL.EscapedPath(), Query: r.URL.Query(),
		Header: header, SignedHeaders: signed, PayloadHash: sha256Hex(body), AmzDate: amzDate,
		AccessKey: cred[0], SecretKey: v.secret, Region: cred[2], Service: cred[3],
	})
	if !hmac.Equal([]byte(want), []byte(fields["Signature"])) {
		return nil, errors.New("signature mismatch")
	}
	return signed, nil
}

// The token request carries a SigV4 signature the server can verify, with
// the session token present and signed, and the default service name.
func TestSigV4TokenRequestVerifiedByServer(t *testing.T) {
	v := sigV4Verifier{secret: testSecretKey, region: "eu-west-1", service: DefaultSigV4Service, sessionToken: testSessionToken}
	var tokenReqs, apiReqs atomic.Int64
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		tokenReqs.Add(1)
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost {
			t.Errorf("token request method %s", r.Method)
		}
		if _, err := v.verify(r, body); err != nil {
			t.Errorf("token request signature: %v", err)
			w.WriteHeader(http.StatusForbidden)
			return
		}
		if len(body) != 0 {
			t.Errorf("token request has a body: %q", body)
		}
		writeJSON(w, `{"accessToken":"service-jwt","expiresIn":3600}`)
	}, func(w http.ResponseWriter, r *http.Request) {
		apiReqs.Add(1)
		if got := r.Header.Get("Authorization"); got != "Bearer service-jwt" {
			t.Errorf("API Authorization = %q", got)
		}
		if r.Header.Get("X-Amz-Date") != "" || r.Header.Get("X-Amz-Security-Token") != "" {
			t.Error("SigV4 headers leaked onto the API request")
		}
		writeJSON(w, userJSON)
	})
	src, err := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "eu-west-1"})
	if err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, srv.URL, src)
	for range 3 {
		if err := updateUser(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	if tokenReqs.Load() != 1 || apiReqs.Load() != 3 {
		t.Fatalf("token requests %d, API requests %d; want 1 and 3", tokenReqs.Load(), apiReqs.Load())
	}
}

// Every attempt is signed again, at its own time: after a 503 the retry has
// a different X-Amz-Date, a valid signature, and its retry header signed.
func TestSigV4ResignsOnRetry(t *testing.T) {
	v := sigV4Verifier{secret: testSecretKey, region: "ap-southeast-2", service: "execute-api", sessionToken: testSessionToken}
	var mu sync.Mutex
	var dates []string
	var signedSets [][]string
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		signed, err := v.verify(r, body)
		if err != nil {
			t.Errorf("attempt signature: %v", err)
		}
		mu.Lock()
		dates = append(dates, r.Header.Get("X-Amz-Date"))
		signedSets = append(signedSets, signed)
		n := len(dates)
		mu.Unlock()
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		writeJSON(w, `{"access_token":"jwt-after-retry"}`)
	}, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, userJSON) })

	src, err := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "ap-southeast-2"})
	if err != nil {
		t.Fatal(err)
	}
	var tick atomic.Int64
	base := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	src.now = func() time.Time { return base.Add(time.Duration(tick.Add(1)) * time.Second) }

	c := newTestClient(t, srv.URL, src)
	if err := updateUser(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dates) != 2 {
		t.Fatalf("token endpoint saw %d attempts, want 2", len(dates))
	}
	if dates[0] == dates[1] {
		t.Fatalf("retry reused X-Amz-Date %s: not re-signed", dates[0])
	}
	if slices.Contains(signedSets[0], "x-retry-attempt") || !slices.Contains(signedSets[1], "x-retry-attempt") {
		t.Fatalf("signed headers %v then %v: the retry header must be set before signing", signedSets[0], signedSets[1])
	}
}

func TestSigV4CredentialsFromEnv(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDENV")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "env-secret")
	t.Setenv("AWS_SESSION_TOKEN", "env-session")
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "us-west-2")
	creds, region, ok := SigV4CredentialsFromEnv()
	if !ok || region != "us-west-2" {
		t.Fatalf("ok %v region %q; want true, us-west-2 (AWS_DEFAULT_REGION fallback)", ok, region)
	}
	got, err := creds.Retrieve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.AccessKeyID != "AKIDENV" || got.SecretAccessKey != "env-secret" || got.SessionToken != "env-session" {
		t.Fatalf("credentials %q/%q/%q", got.AccessKeyID, got.SecretAccessKey, got.SessionToken)
	}
	t.Setenv("AWS_REGION", "eu-central-1")
	if _, region, _ := SigV4CredentialsFromEnv(); region != "eu-central-1" {
		t.Fatalf("AWS_REGION should win, got %q", region)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	if _, _, ok := SigV4CredentialsFromEnv(); ok {
		t.Fatal("ok with no secret key")
	}
}

func TestNewSigV4TokenSourceValidation(t *testing.T) {
	for _, tc := range []struct {
		cfg  SigV4Config
		want []string
	}{
		{SigV4Config{Region: "us-east-1"}, []string{"Credentials"}},
		{SigV4Config{Credentials: testCreds()}, []string{"Region"}},
		{SigV4Config{}, []string{"Credentials", "Region"}},
	} {
		_, err := NewSigV4TokenSource(tc.cfg)
		var ve *apierrors.ValidationError
		if !errors.As(err, &ve) || !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Fatalf("NewSigV4TokenSource(%+v) = %v, want a ValidationError", tc.cfg, err)
		}
		var got []string
		for _, f := range ve.Fields {
			got = append(got, f.Field)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("fields %q, want %q", got, tc.want)
		}
	}
	src, err := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	if src.service != "execute-api" {
		t.Fatalf("default service %q, want execute-api", src.service)
	}
	if _, ok := src.creds.(*aws.CredentialsCache); !ok {
		t.Fatalf("credentials not wrapped in aws.CredentialsCache: %T", src.creds)
	}
	// A source with no base URL, used outside a client, says so.
	_, err = src.Token(context.Background())
	var te *apierrors.TokenError
	if !errors.As(err, &te) {
		t.Fatalf("unbound source: %v, want *TokenError", err)
	}
}

// countingProvider counts Retrieve calls.
type countingProvider struct{ n atomic.Int64 }

func (p *countingProvider) Retrieve(context.Context) (aws.Credentials, error) {
	p.n.Add(1)
	return aws.Credentials{AccessKeyID: testAccessKey, SecretAccessKey: testSecretKey, CanExpire: true, Expires: time.Now().Add(time.Hour)}, nil
}

// The provider is wrapped in aws.NewCredentialsCache: two signatures, one
// Retrieve.
func TestSigV4CredentialsAreCached(t *testing.T) {
	p := &countingProvider{}
	src, err := NewSigV4TokenSource(SigV4Config{Credentials: p, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		req, _ := http.NewRequest(http.MethodPost, "https://api.example.com/auth/token", nil)
		if err := src.sign(req, nil); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(req.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential="+testAccessKey+"/") {
			t.Fatalf("Authorization %q", req.Header.Get("Authorization"))
		}
	}
	if p.n.Load() != 1 {
		t.Fatalf("Retrieve called %d times, want 1", p.n.Load())
	}
}

// A client's WithRetryOn and WithoutRetryOn change the statuses its
// operations retry, not the token endpoint's: WithRetryOn(403) does not
// resend a refused signature, and WithoutRetryOn(503) still lets the token
// call retry a 503.
func TestSigV4TokenCallKeepsItsOwnRetriedStatuses(t *testing.T) {
	var tokenReqs atomic.Int64
	var status atomic.Int64
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		n := tokenReqs.Add(1)
		if s := int(status.Load()); s != 0 && n == 1 {
			w.WriteHeader(s)
			return
		}
		writeJSON(w, `{"accessToken":"service-jwt","expiresIn":3600}`)
	}, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, userJSON) })
	for _, tc := range []struct {
		name   string
		status int
		opt    option.RequestOption
		want   int64
		ok     bool
	}{
		{"WithRetryOn(403)", http.StatusForbidden, option.WithRetryOn(http.StatusForbidden), 1, false},
		{"WithoutRetryOn(503)", http.StatusServiceUnavailable, option.WithoutRetryOn(http.StatusServiceUnavailable), 2, true},
	} {
		tokenReqs.Store(0)
		status.Store(int64(tc.status))
		src, err := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "eu-west-1"})
		if err != nil {
			t.Fatal(err)
		}
		c := newTestClient(t, srv.URL, src, tc.opt, option.WithRetryBackoff(time.Millisecond, time.Millisecond))
		err = updateUser(context.Background(), c)
		if (err == nil) != tc.ok || tokenReqs.Load() != tc.want {
			t.Errorf("%s: token requests %d, err %v; want %d, success %v", tc.name, tokenReqs.Load(), err, tc.want, tc.ok)
		}
	}
}
