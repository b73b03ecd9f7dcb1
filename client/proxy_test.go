package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// Figure 7b: with HTTP_PROXY set, a bearer token or SigV4 material bound
// for plain http to a loopback name that Go's proxy lookup does not bypass
// (LOCALHOST, api.localhost, localhost.) never reaches the proxy: the
// client's own pool goes direct, and New refuses a transport that would
// use the proxy. http.ProxyFromEnvironment reads the environment once per
// process, so the scenarios run in a child process started with
// HTTP_PROXY set, as a service would be.
func TestCredentialsNeverReachAProxyOverPlainHTTP(t *testing.T) {
	if os.Getenv(proxyChildEnv) != "" {
		t.Skip("the child runs TestProxyChild")
	}
	var mu sync.Mutex
	var seen []http.Header
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer proxy.Close()
	// Connection: close, so the child's pools keep no idle connection
	// (the standalone source's own pool cannot be closed from outside).
	api := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
			t.Errorf("token request without a SigV4 signature")
		}
		writeJSON(w, `{"accessToken":"jwt-direct","expiresIn":3600}`)
	}, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		if got := r.Header.Get("Authorization"); got != "Bearer static-direct" && got != "Bearer jwt-direct" {
			t.Errorf("API Authorization %q", got)
		}
		writeJSON(w, userJSON)
	})
	_, port, _ := strings.Cut(strings.TrimPrefix(api.URL, "http://"), ":")

	cmd := exec.Command(os.Args[0], "-test.run=^TestProxyChild$", "-test.v", "-test.count=1")
	env := []string{proxyChildEnv + "=" + port, "HTTP_PROXY=" + proxy.URL}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(name) {
		case "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "REQUEST_METHOD", "MEMBERPLATFORM_TOKEN", "MEMBERPLATFORM_BASE_URL", "AWS_ACCESS_KEY_ID":
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestProxyChild") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	controls := 0
	for _, h := range seen {
		if h.Get("X-Control") != "" {
			controls++
			continue
		}
		t.Errorf("the proxy received an SDK request, headers %v", h)
	}
	for _, h := range seen {
		for _, name := range []string{"Authorization", "X-Amz-Security-Token", "X-Amz-Date"} {
			if h.Get(name) != "" {
				t.Errorf("the proxy received %s", name)
			}
		}
	}
	if controls != 3 {
		t.Fatalf("the proxy received %d control requests, want 3: the environment's proxy is not in effect, the test proves nothing", controls)
	}
}

const proxyChildEnv = "MEMBERPLATFORM_TEST_PROXY_CHILD"

// TestProxyChild runs in the child process of
// TestCredentialsNeverReachAProxyOverPlainHTTP only.
func TestProxyChild(t *testing.T) {
	port := os.Getenv(proxyChildEnv)
	if port == "" {
		t.Skip("runs as TestCredentialsNeverReachAProxyOverPlainHTTP's child")
	}
	viaEnv := &http.Transport{Proxy: http.ProxyFromEnvironment}
	defer viaEnv.CloseIdleConnections()
	opaque := roundTripFunc(viaEnv.RoundTrip)
	for _, host := range []string{"LOCALHOST", "api.localhost", "localhost."} {
		base := "http://" + host + ":" + port
		// Control: Go's own lookup sends this host to the proxy.
		req, _ := http.NewRequest(http.MethodGet, base+"/control", nil)
		req.Header.Set("X-Control", "1")
		if resp, err := viaEnv.RoundTrip(req); err != nil || resp.StatusCode != http.StatusBadGateway {
			t.Fatalf("%s: control request %v %v, want the proxy's 502", host, resp, err)
		} else {
			resp.Body.Close()
		}

		for name, opts := range map[string][]option.RequestOption{
			"static token, own pool": {option.WithTokenSource(StaticToken("static-direct"))},
			"SigV4, own pool":        {optionSigV4()},
		} {
			c, err := New(append([]option.RequestOption{option.WithBaseURL(base)}, opts...)...)
			if err != nil {
				t.Fatalf("%s, %s: New: %v", host, name, err)
			}
			if err := updateUser(context.Background(), c); err != nil {
				t.Errorf("%s, %s: %v, want success, direct", host, name, err)
			}
			// A per-call transport that would use the proxy: refused, unsent.
			err = updateUser(context.Background(), c, option.WithTransport(viaEnv))
			if !errors.Is(err, apierrors.ErrTransport) || !strings.Contains(err.Error(), "through proxy") {
				t.Errorf("%s, %s, per-call proxying transport: %v, want a refusal", host, name, err)
			}
			c.CloseIdleConnections()
		}
		src, err := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "ap-southeast-2", BaseURL: base})
		if err != nil {
			t.Fatalf("%s: standalone SigV4 source: %v", host, err)
		}
		c, err := New(option.WithBaseURL(base), option.WithTokenSource(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := updateUser(context.Background(), c); err != nil {
			t.Errorf("%s, standalone SigV4 source: %v", host, err)
		}
		c.CloseIdleConnections()

		for name, rt := range map[string]http.RoundTripper{"*http.Transport with ProxyFromEnvironment": viaEnv, "opaque transport": opaque} {
			_, err := New(option.WithBaseURL(base), option.WithTokenSource(StaticToken("static-direct")), option.WithTransport(rt))
			if !errors.Is(err, apierrors.ErrInvalidInput) || !strings.Contains(err.Error(), "through proxy") {
				t.Errorf("%s, %s: New = %v, want refused", host, name, err)
			}
			_, err = NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "ap-southeast-2", BaseURL: base,
				Options: []option.RequestOption{option.WithTransport(rt)}})
			if !errors.Is(err, apierrors.ErrInvalidInput) || !strings.Contains(err.Error(), "through proxy") {
				t.Errorf("%s, %s: NewSigV4TokenSource = %v, want refused", host, name, err)
			}
		}
		// Without credentials, the user's transport is the user's business.
		if _, err := New(option.WithBaseURL(base), option.WithTokenSource(nil), option.WithTransport(viaEnv)); err != nil {
			t.Errorf("%s: New without a token source: %v", host, err)
		}
	}
}
