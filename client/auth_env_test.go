package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// clearAuthEnv empties every variable New reads for authentication.
func clearAuthEnv(t *testing.T) {
	for _, k := range []string{EnvBaseURL, EnvToken, EnvSigV4Service, "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		"AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION"} {
		t.Setenv(k, "")
	}
}

// envServer records what New's environment-chosen source sends.
type envServer struct {
	srv       *httptest.Server
	verifier  atomic.Pointer[sigV4Verifier]
	tokenReqs atomic.Int64
	api       recorder
}

func newEnvServer(t *testing.T) *envServer {
	e := &envServer{}
	e.srv = newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		e.tokenReqs.Add(1)
		body, _ := io.ReadAll(r.Body)
		if v := e.verifier.Load(); v == nil {
			t.Error("unexpected token request")
		} else if _, err := v.verify(r, body); err != nil {
			t.Errorf("token request: %v", err)
		}
		if v := e.verifier.Load(); v != nil && v.sessionToken == "" && r.Header.Get("X-Amz-Security-Token") != "" {
			t.Error("X-Amz-Security-Token sent without a session token")
		}
		writeJSON(w, `{"accessToken":"sigv4-jwt","expiresIn":600}`)
	}, func(w http.ResponseWriter, r *http.Request) {
		e.api.add(r.Header.Get("Authorization"))
		writeJSON(w, userJSON)
	})
	return e
}

// The documented order: explicit option, MEMBERPLATFORM_TOKEN, AWS keys
// (SigV4), none.
func TestEnvironmentDefaults(t *testing.T) {
	setAWS := func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", testAccessKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", testSecretKey)
	}
	run := func(t *testing.T, e *envServer, opts ...option.RequestOption) {
		t.Helper()
		c := newClientOpts(t, e.srv.URL, opts...)
		if err := updateUser(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("MEMBERPLATFORM_TOKEN wins over AWS keys", func(t *testing.T) {
		clearAuthEnv(t)
		setAWS(t)
		t.Setenv("AWS_REGION", "us-east-1")
		t.Setenv(EnvToken, "env-jwt")
		e := newEnvServer(t)
		run(t, e)
		if got := e.api.get(); !slices.Equal(got, []string{"Bearer env-jwt"}) || e.tokenReqs.Load() != 0 {
			t.Fatalf("API saw %v after %d token requests", got, e.tokenReqs.Load())
		}
	})
	t.Run("New with no options at all", func(t *testing.T) {
		clearAuthEnv(t)
		e := newEnvServer(t)
		t.Setenv(EnvBaseURL, e.srv.URL)
		t.Setenv(EnvToken, "env-only-jwt")
		c, err := New()
		if err != nil {
			t.Fatal(err)
		}
		if err := updateUser(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		if got := e.api.get(); !slices.Equal(got, []string{"Bearer env-only-jwt"}) {
			t.Fatalf("API saw %v", got)
		}
	})
	for _, tc := range []struct {
		name string
		env  map[string]string // besides the AWS keys
		want sigV4Verifier     // what the token request must be signed with
	}{
		{
			"AWS keys: SigV4 with AWS_REGION, session token and service",
			map[string]string{"AWS_SESSION_TOKEN": testSessionToken, "AWS_REGION": "ap-southeast-2", "AWS_DEFAULT_REGION": "us-east-1", EnvSigV4Service: "custom-api"},
			sigV4Verifier{secret: testSecretKey, region: "ap-southeast-2", service: "custom-api", sessionToken: testSessionToken},
		},
		{
			"AWS keys: AWS_DEFAULT_REGION and default service",
			map[string]string{"AWS_DEFAULT_REGION": "us-west-2"},
			sigV4Verifier{secret: testSecretKey, region: "us-west-2", service: "execute-api"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearAuthEnv(t)
			setAWS(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			e := newEnvServer(t)
			e.verifier.Store(&tc.want)
			run(t, e)
			if got := e.api.get(); !slices.Equal(got, []string{"Bearer sigv4-jwt"}) || e.tokenReqs.Load() != 1 {
				t.Fatalf("API saw %v after %d token requests", got, e.tokenReqs.Load())
			}
		})
	}
	t.Run("AWS keys without a region fail New", func(t *testing.T) {
		clearAuthEnv(t)
		setAWS(t)
		_, err := New(option.WithBaseURL("https://api.example.com"))
		if !errors.Is(err, apierrors.ErrInvalidInput) || !strings.Contains(err.Error(), "AWS_REGION") {
			t.Fatalf("err = %v, want a configuration error naming AWS_REGION", err)
		}
		if strings.Contains(err.Error(), testSecretKey) {
			t.Fatal("error holds the secret key")
		}
	})
	t.Run("nothing set: no Authorization", func(t *testing.T) {
		clearAuthEnv(t)
		e := newEnvServer(t)
		run(t, e)
		if got := e.api.get(); !slices.Equal(got, []string{""}) {
			t.Fatalf("API saw %v", got)
		}
	})
	t.Run("explicit source wins over the environment", func(t *testing.T) {
		clearAuthEnv(t)
		setAWS(t)
		t.Setenv("AWS_REGION", "us-east-1")
		t.Setenv(EnvToken, "env-jwt")
		e := newEnvServer(t)
		run(t, e, option.WithTokenSource(StaticToken("explicit-jwt")))
		run(t, e, option.WithTokenSource(nil))
		if got := e.api.get(); !slices.Equal(got, []string{"Bearer explicit-jwt", ""}) || e.tokenReqs.Load() != 0 {
			t.Fatalf("API saw %v after %d token requests", got, e.tokenReqs.Load())
		}
	})
}
