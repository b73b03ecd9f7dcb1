package option_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/observe"
	"github.com/memberplatform/memberplatform-go/option"
)

type nopObserver struct{ observe.Observer }

// Each option checks its own scope, once: the client-wide ones refuse a
// single call, WithResponseInto refuses client.New, and a refused option
// changes nothing.
func TestOptionScope(t *testing.T) {
	creds := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return aws.Credentials{}, nil })
	for _, tt := range []struct {
		name    string
		o       option.RequestOption
		perCall bool
		want    string
	}{
		{"WithRetryBudget", option.WithRetryBudget(option.RetryBudget{Disabled: true}), true, "WithRetryBudget, WithRateLimiter, WithAdaptiveRateLimit, WithoutAdaptiveRateLimit and WithoutAdmissionControl apply to client.New, not to a single call"},
		{"WithoutAdmissionControl", option.WithoutAdmissionControl(), true, "apply to client.New, not to a single call"},
		{"WithMaxConnsPerHost", option.WithMaxConnsPerHost(4), true, "WithMaxConnsPerHost applies to client.New, not to a single call"},
		{"WithRateLimiter", option.WithRateLimiter(nopLimiter{}), true, "apply to client.New, not to a single call"},
		{"WithAdaptiveRateLimit", option.WithAdaptiveRateLimit(), true, "apply to client.New, not to a single call"},
		{"WithoutAdaptiveRateLimit", option.WithoutAdaptiveRateLimit(), true, "apply to client.New, not to a single call"},
		{"WithObserver", option.WithObserver(nopObserver{}), true, "WithObserver and the OpenTelemetry options apply to client.New, not to a single call"},
		{"WithTokenSource", option.WithTokenSource(nil), true, "WithTokenSource and WithSigV4 apply to client.New, not to a single call"},
		{"WithSigV4", option.WithSigV4(creds, "eu-west-1"), true, "WithTokenSource and WithSigV4 apply to client.New, not to a single call"},
		{"WithResponseInto", option.WithResponseInto(new(*http.Response)), false, "option.WithResponseInto applies to a single call, not to client.New"},
		{"WithJSONSet", option.WithJSONSet("department", "R&D"), false, "option.WithJSONSet applies to a single call, not to client.New"},
	} {
		s := core.DefaultSettings()
		before := s
		err := core.Apply(&s, tt.perCall, []option.RequestOption{tt.o})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s (per call %v): err = %v, want %q", tt.name, tt.perCall, err, tt.want)
		}
		if s.Scopes != before.Scopes || s.Observer != nil ||
			s.SigV4 != nil || s.ResponseInto != nil || s.JSONSet != nil {
			t.Errorf("%s: a refused option changed the settings", tt.name)
		}
	}
	// Options for both scopes apply in either.
	for _, perCall := range []bool{false, true} {
		s := core.DefaultSettings()
		if err := core.Apply(&s, perCall, []option.RequestOption{option.WithMaxRetries(7), nil}); err != nil || s.Retry.MaxRetries != 7 {
			t.Errorf("WithMaxRetries (per call %v): err = %v, MaxRetries %d", perCall, err, s.Retry.MaxRetries)
		}
		s = core.DefaultSettings()
		if err := core.Apply(&s, perCall, []option.RequestOption{option.WithRetryOn(409), option.WithoutRetryOn(503)}); err != nil ||
			!s.Retry.Statuses.On.Has(409) || !s.Retry.Statuses.Off.Has(503) {
			t.Errorf("WithRetryOn, WithoutRetryOn (per call %v): err = %v, statuses %+v", perCall, err, s.Retry.Statuses)
		}
	}
}

// embedded satisfies option.RequestOption by embedding one, without being
// an option the pipeline can apply: it is refused, not skipped.
type embedded struct{ option.RequestOption }

func TestForeignOptionRefused(t *testing.T) {
	s := core.DefaultSettings()
	err := core.Apply(&s, false, []option.RequestOption{embedded{option.WithMaxRetries(1)}})
	if err == nil || !strings.Contains(err.Error(), "not an option from package option") || s.Retry.MaxRetries == 1 {
		t.Fatalf("err = %v, MaxRetries %d; want refused", err, s.Retry.MaxRetries)
	}
}

// A SigV4 source's own options are client options: WithResponseInto is
// refused there, rather than handed every token response.
func TestSigV4SourceRefusesResponseInto(t *testing.T) {
	creds := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret"}, nil
	})
	var resp *http.Response
	_, err := client.NewSigV4TokenSource(client.SigV4Config{Credentials: creds, Region: "eu-west-1", BaseURL: "https://api.example.com",
		Options: []option.RequestOption{option.WithResponseInto(&resp)}})
	if err == nil || !strings.Contains(err.Error(), "WithResponseInto applies to a single call") {
		t.Fatalf("err = %v, want WithResponseInto refused", err)
	}
}
