package sdktest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

const sigV4Algorithm = "AWS4-HMAC-SHA256"

// verifySigV4 checks r's AWS Signature Version 4 header signature against
// the configured credentials, region and service, recomputing the canonical
// request and the HMAC chain independently of the AWS SDK. body is the
// request body as received. now is the server's real time.
func (s *Server) verifySigV4(r *http.Request, body []byte, now time.Time) error {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return errMissingAuth
	}
	rest, ok := strings.CutPrefix(auth, sigV4Algorithm+" ")
	if !ok {
		return errors.New("authorization is not " + sigV4Algorithm)
	}
	var credential, signedHeaders, signature string
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Credential":
			credential = v
		case "SignedHeaders":
			signedHeaders = v
		case "Signature":
			signature = v
		}
	}
	if credential == "" || signedHeaders == "" || signature == "" {
		return errors.New("authorization lacks Credential, SignedHeaders or Signature")
	}
	scope := strings.Split(credential, "/")
	if len(scope) != 5 || scope[4] != "aws4_request" {
		return errors.New("malformed credential scope")
	}
	keyID, day, region, service := scope[0], scope[1], scope[2], scope[3]
	if keyID != s.cfg.accessKeyID {
		return errors.New("unknown access key ID")
	}
	if region != s.cfg.region {
		return errors.New("credential scope region " + strconv.Quote(region) + " is not " + strconv.Quote(s.cfg.region))
	}
	if service != s.cfg.service {
		return errors.New("credential scope service " + strconv.Quote(service) + " is not " + strconv.Quote(s.cfg.service))
	}
	amzDate := r.Header.Get("X-Amz-Date")
	signedAt, err := time.Parse("20060102T150405Z", amzDate)
	if err != nil {
		return errors.New("missing or malformed X-Amz-Date")
	}
	if d := now.Sub(signedAt); d > MaxClockSkew || d < -MaxClockSkew {
		return errors.New("signature expired: X-Amz-Date is more than 5 minutes from the server time")
	}
	if day != amzDate[:8] {
		return errors.New("credential scope date does not match X-Amz-Date")
	}
	names := strings.Split(signedHeaders, ";")
	if !sort.StringsAreSorted(names) || !contains(names, "host") || !contains(names, "x-amz-date") {
		return errors.New("SignedHeaders must be sorted and include host and x-amz-date")
	}
	if s.cfg.sessionToken != "" {
		if r.Header.Get("X-Amz-Security-Token") != s.cfg.sessionToken || !contains(names, "x-amz-security-token") {
			return errors.New("missing or wrong X-Amz-Security-Token")
		}
	}
	sum := sha256.Sum256(body)
	payloadHash := hex.EncodeToString(sum[:])
	if h := r.Header.Get("X-Amz-Content-Sha256"); h != "" && h != payloadHash {
		return errors.New("X-Amz-Content-Sha256 does not match the body")
	}

	var canon strings.Builder
	canon.WriteString(r.Method + "\n")
	canon.WriteString(canonicalURI(r.URL) + "\n")
	canon.WriteString(canonicalQuery(r.URL.Query()) + "\n")
	for _, n := range names {
		canon.WriteString(n + ":" + canonicalHeaderValue(r, n) + "\n")
	}
	canon.WriteString("\n" + signedHeaders + "\n" + payloadHash)
	creq := sha256.Sum256([]byte(canon.String()))
	scopeStr := strings.Join(scope[1:], "/")
	stringToSign := sigV4Algorithm + "\n" + amzDate + "\n" + scopeStr + "\n" + hex.EncodeToString(creq[:])

	key := hmacSHA256([]byte("AWS4"+s.cfg.secretAccessKey), day)
	key = hmacSHA256(key, region)
	key = hmacSHA256(key, service)
	key = hmacSHA256(key, "aws4_request")
	want := hex.EncodeToString(hmacSHA256(key, stringToSign))
	if !hmac.Equal([]byte(want), []byte(signature)) {
		return errors.New("signature does not match")
	}
	return nil
}

var errMissingAuth = errors.New("missing Authorization header")

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// canonicalURI is the URI-encoded path; services other than S3 encode each
// segment of the already-escaped path once more.
func canonicalURI(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		return "/"
	}
	return awsEscape(p, false)
}

// awsEscape percent-encodes every byte but the unreserved characters (and
// '/', unless encodeSep).
func awsEscape(s string, encodeSep bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if ('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~' || (c == '/' && !encodeSep) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

func canonicalQuery(q url.Values) string {
	var pairs []string
	for k, vs := range q {
		for _, v := range vs {
			pairs = append(pairs, awsEscape(k, true)+"="+awsEscape(v, true))
		}
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

func canonicalHeaderValue(r *http.Request, name string) string {
	var vals []string
	switch name {
	case "host":
		vals = []string{r.Host}
	case "content-length":
		vals = r.Header.Values("Content-Length")
		if len(vals) == 0 {
			vals = []string{strconv.FormatInt(r.ContentLength, 10)}
		}
	default:
		vals = r.Header.Values(name)
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = strings.Join(strings.Fields(v), " ")
	}
	return strings.Join(out, ",")
}

// jwtClaims are the claims of the tokens the server issues.
type jwtClaims struct {
	Issuer   string `json:"iss"`
	Subject  string `json:"sub"`
	IssuedAt int64  `json:"iat"`
	Expiry   int64  `json:"exp"`
	ID       string `json:"jti"`
}

var jwtHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

// IssueToken returns a valid service JWT, as the token endpoint would
// issue, for use with client.StaticToken. It is not counted by
// TokensIssued.
func (s *Server) IssueToken() string {
	s.mu.Lock()
	s.seq++
	n := s.seq
	s.mu.Unlock()
	tok, _ := s.signJWT(time.Now(), n)
	return tok
}

// signJWT returns an HS256 JWT and its expiry.
func (s *Server) signJWT(now time.Time, n int) (string, time.Time) {
	exp := now.Add(s.cfg.tokenLifetime)
	claims, _ := json.Marshal(jwtClaims{Issuer: "sdktest", Subject: s.cfg.accessKeyID, IssuedAt: now.Unix(), Expiry: exp.Unix(), ID: "jti-" + strconv.Itoa(n)})
	unsigned := jwtHeader + "." + base64.RawURLEncoding.EncodeToString(claims)
	sig := base64.RawURLEncoding.EncodeToString(hmacSHA256(s.jwtKey, unsigned))
	return unsigned + "." + sig, time.Unix(exp.Unix(), 0)
}

// verifyBearer checks an "Authorization: Bearer <jwt>" header.
func (s *Server) verifyBearer(header string, now time.Time) error {
	tok, ok := strings.CutPrefix(header, "Bearer ")
	if !ok || tok == "" {
		return errors.New("missing bearer token")
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || parts[0] != jwtHeader {
		return errors.New("malformed bearer token")
	}
	want := hmacSHA256(s.jwtKey, parts[0]+"."+parts[1])
	got, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !hmac.Equal(want, got) {
		return errors.New("invalid bearer token signature")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	var c jwtClaims
	if err != nil || json.Unmarshal(payload, &c) != nil {
		return errors.New("malformed bearer token claims")
	}
	if now.Unix() >= c.Expiry {
		return errors.New("bearer token expired")
	}
	return nil
}
