package sdktest_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

func TestAuthentication(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
	m := srv.AddMember("")
	ctx := t.Context()
	p := customer.UpsertMemberAddressParams{AddressLineOne: "1", State: "s", Suburb: "s", Postcode: "1", Country: "AU"}

	t.Run("token is fetched once and reused", func(t *testing.T) {
		c := srv.Client()
		for range 3 {
			if _, err := c.AccessMgmt.UpdateUser(ctx, "u", accessmgmt.UpdateUserParams{FirstName: new("A")}); err != nil {
				t.Fatal(err)
			}
		}
		if n := srv.TokensIssued(); n != 1 {
			t.Errorf("tokens issued = %d, want 1", n)
		}
		var authz string
		for _, r := range srv.Requests() {
			if r.Operation == sdktest.OpUpdateUser {
				authz = r.Header.Get("Authorization")
			}
		}
		if !strings.HasPrefix(authz, "Bearer ey") {
			t.Errorf("recorded Authorization = %q", authz)
		}
	})
	t.Run("no token", func(t *testing.T) {
		c := srv.Client(option.WithTokenSource(nil))
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", accessmgmt.UpdateUserParams{FirstName: new("A")})
		var apiErr *apierrors.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.Problem == nil {
			t.Errorf("problem 401: err = %v", err)
		}
		_, err = c.Customer.UpsertMemberAddress(ctx, m, p)
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.CodeMessage == nil || apiErr.CodeMessage.Code != "UNAUTHENTICATED" {
			t.Errorf("code/message 401: err = %v", err)
		}
	})
	t.Run("expired and forged tokens", func(t *testing.T) {
		expired := sdktest.NewServer(t, sdktest.WithTokenLifetime(-time.Minute))
		for _, tok := range []string{expired.IssueToken(), srv.IssueToken() + "x", "not-a-jwt"} {
			c := srv.Client(option.WithTokenSource(client.StaticToken(tok)))
			_, err := c.AccessMgmt.UpdateUser(ctx, "u", accessmgmt.UpdateUserParams{FirstName: new("A")})
			if !errors.Is(err, apierrors.ErrUnauthorized) {
				t.Errorf("token %.12q...: err = %v", tok, err)
			}
		}
		c := srv.Client(option.WithTokenSource(client.StaticToken(srv.IssueToken())))
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", accessmgmt.UpdateUserParams{FirstName: new("A")}); err != nil {
			t.Errorf("valid static token: %v", err)
		}
	})
	t.Run("local development mode", func(t *testing.T) {
		dev := sdktest.NewServer(t, sdktest.WithoutAuth())
		dev.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
		if _, err := dev.Client().AccessMgmt.UpdateUser(ctx, "u", accessmgmt.UpdateUserParams{FirstName: new("A")}); err != nil {
			t.Fatal(err)
		}
		if n := dev.TokenRequests(); n != 0 {
			t.Errorf("token requests = %d, want 0", n)
		}
		if h := dev.Requests()[0].Header.Get("Authorization"); h != "" {
			t.Errorf("Authorization sent in local development mode: %q", h)
		}
	})
}

func TestSigV4Verification(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t, sdktest.WithCredentials("AKIDEXAMPLE", "right-secret", ""), sdktest.WithRegion("ap-southeast-2"))
	srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
	ctx := t.Context()
	call := func(src client.TokenSource) error {
		c := srv.Client(option.WithTokenSource(src), option.WithMaxRetries(0))
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", accessmgmt.UpdateUserParams{FirstName: new("A")})
		return err
	}
	source := func(id, secret, region, service string) client.TokenSource {
		src, err := client.NewSigV4TokenSource(client.SigV4Config{Credentials: credentials.NewStaticCredentialsProvider(id, secret, ""), Region: region, Service: service})
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	if err := call(source("AKIDEXAMPLE", "right-secret", "ap-southeast-2", "")); err != nil {
		t.Fatalf("valid signature: %v", err)
	}
	for _, tc := range []struct{ name, id, secret, region, service string }{
		{"wrong secret", "AKIDEXAMPLE", "wrong-secret", "ap-southeast-2", ""},
		{"unknown key", "AKIDOTHER", "right-secret", "ap-southeast-2", ""},
		{"wrong region", "AKIDEXAMPLE", "right-secret", "us-west-2", ""},
		{"wrong service", "AKIDEXAMPLE", "right-secret", "ap-southeast-2", "lambda"},
	} {
		err := call(source(tc.id, tc.secret, tc.region, tc.service))
		var te *apierrors.TokenError
		if !errors.As(err, &te) || te.StatusCode != http.StatusForbidden || !errors.Is(err, apierrors.ErrTokenUnavailable) {
			t.Errorf("%s: err = %v, want a 403 token error", tc.name, err)
		}
	}

	// Signing times: within the 5-minute skew passes, beyond it fails.
	signer := v4.NewSigner()
	creds, _ := credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "right-secret", "").Retrieve(ctx)
	emptyHash := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	for _, tc := range []struct {
		skew time.Duration
		want int
	}{{-4 * time.Minute, 200}, {4 * time.Minute, 200}, {-6 * time.Minute, 403}, {6 * time.Minute, 403}} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/auth/token", nil)
		if err := signer.SignHTTP(ctx, creds, req, emptyHash, client.DefaultSigV4Service, "ap-southeast-2", time.Now().Add(tc.skew)); err != nil {
			t.Fatal(err)
		}
		resp, err := srv.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("signed %v from now: status %d, want %d", tc.skew, resp.StatusCode, tc.want)
		}
	}
	// A signed request whose body was changed after signing fails.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/auth/token", strings.NewReader("tampered"))
	_ = signer.SignHTTP(ctx, creds, req, emptyHash, client.DefaultSigV4Service, "ap-southeast-2", time.Now())
	resp, err := srv.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("tampered body: status %d, want 403", resp.StatusCode)
	}
	if n := srv.TokenRequests(); n != 10 {
		t.Errorf("token requests = %d, want 10", n)
	}
}

func TestSessionToken(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t, sdktest.WithCredentials("AKIDEXAMPLE", "secret", "session-1"))
	srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
	if _, err := srv.Client().AccessMgmt.UpdateUser(t.Context(), "u", accessmgmt.UpdateUserParams{FirstName: new("A")}); err != nil {
		t.Fatalf("with the session token: %v", err)
	}
	src, _ := client.NewSigV4TokenSource(client.SigV4Config{Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""), Region: sdktest.DefaultRegion})
	_, err := srv.Client(option.WithTokenSource(src), option.WithMaxRetries(0)).AccessMgmt.UpdateUser(t.Context(), "u", accessmgmt.UpdateUserParams{FirstName: new("A")})
	if !errors.Is(err, apierrors.ErrTokenUnavailable) {
		t.Errorf("without the session token: err = %v", err)
	}
}
