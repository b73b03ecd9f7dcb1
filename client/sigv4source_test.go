package client_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

// A SigV4 token source belongs to one platform: WithSigV4 builds one per
// client, a source built without a base URL serves the first client only,
// and one built with a plain-http base URL is refused at once.

func TestWithSigV4OptionServesEachClientItsOwnPlatform(t *testing.T) {
	t.Parallel()
	a, b := sdktest.NewServer(t), sdktest.NewServer(t)
	for _, s := range []*sdktest.Server{a, b} {
		s.AddUser(sdktest.User{ID: testUserID, Email: "ada@example.com"})
	}
	opt := option.WithSigV4(a.Credentials(), a.Region()) // one option value, two clients
	for _, s := range []*sdktest.Server{a, b} {
		c := newClient(t, option.WithBaseURL(s.URL), option.WithTransport(s.HTTPClient().Transport), opt)
		if err := updateFirstName(t.Context(), c); err != nil {
			t.Fatalf("%s: %v", s.URL, err)
		}
	}
	if a.TokenRequests() != 1 || b.TokenRequests() != 1 {
		t.Fatalf("token requests: a=%d b=%d, want 1 each", a.TokenRequests(), b.TokenRequests())
	}
}

func TestSigV4SourceWithoutBaseURLServesOneClient(t *testing.T) {
	t.Parallel()
	a := sdktest.NewServer(t)
	src, err := client.NewSigV4TokenSource(client.SigV4Config{Credentials: a.Credentials(), Region: a.Region()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.New(option.WithBaseURL(a.URL), option.WithTokenSource(src)); err != nil {
		t.Fatal(err)
	}
	_, err = client.New(option.WithBaseURL("https://other.example"), option.WithTokenSource(src))
	if !errors.Is(err, apierrors.ErrInvalidInput) || !strings.Contains(err.Error(), "already serves another client") {
		t.Fatalf("second New: %v, want a config error", err)
	}
}

func TestStandaloneSigV4SourceRefusesPlainHTTPAtOnce(t *testing.T) {
	t.Parallel()
	creds := credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")
	for _, tc := range []struct {
		base  string
		opts  []option.RequestOption
		valid bool
	}{
		{"http://api.example.com", nil, false},
		{"not a url", nil, false},
		{"http://api.example.com", []option.RequestOption{option.WithInsecureBearerOverHTTP()}, true},
		{"http://127.0.0.1:8080", nil, true},
		{"https://api.example.com", nil, true},
	} {
		_, err := client.NewSigV4TokenSource(client.SigV4Config{Credentials: creds, Region: "us-east-1", BaseURL: tc.base, Options: tc.opts})
		if (err == nil) != tc.valid || (err != nil && !errors.Is(err, apierrors.ErrInvalidInput)) {
			t.Errorf("BaseURL %q: err = %v, want valid=%v (ErrInvalidInput otherwise)", tc.base, err, tc.valid)
		}
	}
}
