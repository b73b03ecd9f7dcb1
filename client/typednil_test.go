package client_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/option"
	"golang.org/x/time/rate"
)

// typedNilOptions are options given a value that is not nil as an
// interface or pointer yet would panic on use: every one must be refused
// with a ValidationError that names the option. In 0.2.0 New accepted the
// rate limiter, transport, HTTP client parts and SigV4 providers, and the
// first call panicked (the SigV4 ones in an AWS SDK goroutine, ending the
// process).
var typedNilOptions = []struct {
	name    string
	opt     option.RequestOption
	option  string // the option the error must name
	perCall bool   // the option may be given to a single call
}{
	{"WithRateLimiter nil *rate.Limiter", option.WithRateLimiter((*rate.Limiter)(nil)), "WithRateLimiter", false},
	{"WithTransport nil *http.Transport", option.WithTransport((*http.Transport)(nil)), "WithTransport", true},
	{"WithTransport nil func", option.WithTransport(roundTripFunc(nil)), "WithTransport", true},
	{"WithHTTPClient nil *http.Client", option.WithHTTPClient(nil), "WithHTTPClient", true},
	{"WithHTTPClient nil Transport inside", option.WithHTTPClient(&http.Client{Transport: (*http.Transport)(nil)}), "WithHTTPClient", true},
	{"WithHTTPClient nil Jar inside", option.WithHTTPClient(&http.Client{Jar: (*cookiejar.Jar)(nil)}), "WithHTTPClient", true},
	{"WithSigV4 nil provider", option.WithSigV4(nil, "ap-southeast-2"), "WithSigV4", false},
	{"WithSigV4 nil *StaticCredentialsProvider", option.WithSigV4((*credentials.StaticCredentialsProvider)(nil), "ap-southeast-2"), "WithSigV4", false},
	{"WithSigV4 nil CredentialsProviderFunc", option.WithSigV4(aws.CredentialsProviderFunc(nil), "ap-southeast-2"), "WithSigV4", false},
	{"WithSigV4 nil *CredentialsCache", option.WithSigV4((*aws.CredentialsCache)(nil), "ap-southeast-2"), "WithSigV4", false},
	{"WithSigV4 cache around nil", option.WithSigV4(aws.NewCredentialsCache(nil), "ap-southeast-2"), "WithSigV4", false},
	{"WithSigV4 cache around a cache around nil", option.WithSigV4(aws.NewCredentialsCache(aws.NewCredentialsCache(nil)), "ap-southeast-2"), "WithSigV4", false},
	{"WithSigV4 cache around nil func", option.WithSigV4(aws.NewCredentialsCache(aws.CredentialsProviderFunc(nil)), "ap-southeast-2"), "WithSigV4", false},
	{"WithTokenSource nil *SigV4TokenSource", option.WithTokenSource((*client.SigV4TokenSource)(nil)), "WithTokenSource", false},
	{"WithTokenSource nil TokenSourceFunc", option.WithTokenSource(client.TokenSourceFunc(nil)), "WithTokenSource", false},
	{"WithMiddleware nil", option.WithMiddleware(nil), "WithMiddleware", true},
	{"WithLogger zero slog.Logger", option.WithLogger(&slog.Logger{}), "WithLogger", true},
	{"WithLogger nil handler inside", option.WithLogger(slog.New((*slog.TextHandler)(nil))), "WithLogger", true},
	{"WithResponseInto nil", option.WithResponseInto(nil), "WithResponseInto", true},
}

func TestTypedNilOptionsAreRefusedByNew(t *testing.T) {
	t.Parallel()
	for _, tc := range typedNilOptions {
		if tc.option == "WithResponseInto" {
			continue // call-only: New refuses it for its scope whatever its value (option/scope_test.go)
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var (
				c   *client.Client
				err error
			)
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("New panicked: %v", p)
					}
				}()
				c, err = client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(client.StaticToken("t")), tc.opt)
			}()
			var ve *apierrors.ValidationError
			if c != nil || !errors.As(err, &ve) || ve.Fields[0].Field != "config" || !strings.Contains(err.Error(), tc.option) || !strings.Contains(err.Error(), "nil") {
				t.Fatalf("New = %v, %v; want a *errors.ValidationError naming %s and the nil value", c, err, tc.option)
			}
		})
	}
}

// The options a single call may take refuse the same values at the call,
// before anything is sent.
func TestTypedNilOptionsAreRefusedPerCall(t *testing.T) {
	t.Parallel()
	for _, tc := range typedNilOptions {
		if !tc.perCall {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			c := m.Client()
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("the call panicked: %v", p)
					}
				}()
				err = c.Execute(t.Context(), http.MethodGet, usersPath, nil, nil, tc.opt)
			}()
			var ve *apierrors.ValidationError
			if !errors.As(err, &ve) || ve.Fields[0].Field != "options" || !strings.Contains(err.Error(), tc.option) {
				t.Fatalf("err = %v; want a *errors.ValidationError naming %s", err, tc.option)
			}
			if m.Calls() != 0 {
				t.Fatalf("%d requests sent", m.Calls())
			}
		})
	}
}

// A plain nil keeps its documented meaning; the SigV4 constructor refuses
// the same typed nils as the option.
func TestPlainNilOptionsKeepTheirMeaning(t *testing.T) {
	t.Parallel()
	c, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil), option.WithLogger(nil))
	if err != nil || c == nil {
		t.Fatalf("WithTokenSource(nil), WithLogger(nil): %v", err)
	}
	for _, creds := range []aws.CredentialsProvider{(*credentials.StaticCredentialsProvider)(nil), aws.NewCredentialsCache(nil)} {
		_, err := client.NewSigV4TokenSource(client.SigV4Config{Credentials: creds, Region: "ap-southeast-2"})
		var ve *apierrors.ValidationError
		if !errors.As(err, &ve) || ve.Fields[0].Field != "Credentials" {
			t.Errorf("NewSigV4TokenSource(%T) = %v; want a ValidationError on Credentials", creds, err)
		}
	}
	// A working provider still builds.
	working := aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""))
	if _, err := client.NewSigV4TokenSource(client.SigV4Config{Credentials: working, Region: "ap-southeast-2"}); err != nil {
		t.Fatal(err)
	}
	// A typed nil among its own options is named as such, not as the base URL.
	_, err = client.NewSigV4TokenSource(client.SigV4Config{Credentials: working, Region: "ap-southeast-2",
		BaseURL: "https://api.example.com", Options: []option.RequestOption{option.WithTransport((*http.Transport)(nil))}})
	var ve *apierrors.ValidationError
	if !errors.As(err, &ve) || ve.Fields[0].Field != "Options" || !strings.Contains(err.Error(), "WithTransport") {
		t.Errorf("NewSigV4TokenSource with a nil transport option = %v; want a ValidationError on Options naming WithTransport", err)
	}
}

// A nil context is refused like a typed nil option: a validation error on
// ctx before anything is sent.
func TestNilContextIsAValidationError(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
	var nilCtx context.Context
	err := updateFirstName(nilCtx, c)
	var ve *apierrors.ValidationError
	if !errors.As(err, &ve) || ve.Fields[0].Field != "ctx" || srv.reqs.Load() != 0 {
		t.Fatalf("err = %v (requests %d), want a validation error on ctx and no request", err, srv.reqs.Load())
	}
}
