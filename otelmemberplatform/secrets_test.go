package otelmemberplatform_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// TestNoSecretInTelemetry runs calls that carry every kind of secret the
// SDK handles (bearer token, SigV4 secret key, session token and
// signature, a query value, a path ID, request and response bodies) and
// searches every span name, attribute, event and status, and every metric
// attribute, for them.
func TestNoSecretInTelemetry(t *testing.T) {
	const (
		secretKey    = "SECRETsigv4KEYnotForTelemetry0000000000"
		sessionToken = "SESSIONtokenNotForTelemetry"
		queryValue   = "QUERYvalueNotForTelemetry"
		bodyValue    = "BODYvalueNotForTelemetry"
		answerValue  = "ANSWERdetailNotForTelemetry"
		pathID       = "user_PATHidNotForTelemetry"
	)
	tel := newTelemetry(t)
	srv := sdktest.NewServer(t, sdktest.WithCredentials("AKIDTELEMETRYTEST000", secretKey, sessionToken))
	srv.AddUser(sdktest.User{ID: pathID, Email: "ada@example.com"})
	var mu sync.Mutex
	var sent []string // the credentials the requests carried: bearer tokens and signatures
	capture := option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		mu.Lock()
		if h := req.Header.Get("Authorization"); h != "" {
			sent = append(sent, h)
			if _, sig, ok := strings.Cut(h, "Signature="); ok {
				sent = append(sent, sig)
			}
			if _, tok, ok := strings.Cut(h, "Bearer "); ok {
				sent = append(sent, tok)
			}
		}
		mu.Unlock()
		return next(req)
	})
	c := srv.Client(append(append([]option.RequestOption{}, tel.opts...), capture)...)

	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusServiceUnavailable,
		Body: `{"type":"about:blank","title":"Unavailable","status":503,"detail":"` + answerValue + `"}`})
	query := option.WithQuery(url.Values{"q": {queryValue}})
	params := accessmgmt.UpdateUserParams{FirstName: new(bodyValue)}
	if _, err := c.AccessMgmt.UpdateUser(t.Context(), pathID, params, query); err != nil {
		t.Fatal(err)
	}
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusUnauthorized})
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusBadRequest,
		Body: `{"type":"about:blank","title":"Bad","status":400,"detail":"` + answerValue + `"}`})
	_, _ = c.AccessMgmt.UpdateUser(t.Context(), pathID, params, query)
	var raw []byte
	_ = c.Execute(t.Context(), http.MethodPut, "/auth/access-management/users/"+pathID, map[string]string{"firstName": bodyValue}, &raw, query)

	mu.Lock()
	secrets := append([]string{secretKey, sessionToken, queryValue, bodyValue, answerValue, pathID}, sent...)
	mu.Unlock()
	if len(sent) < 4 {
		t.Fatalf("captured %d credentials, want bearer tokens and signatures", len(sent))
	}

	var texts []string
	kv := func(where string, attrs ...attribute.KeyValue) {
		for _, a := range attrs {
			texts = append(texts, where+" "+string(a.Key)+"="+a.Value.String())
		}
	}
	spans := tel.spans.Ended()
	if len(spans) < 8 {
		t.Fatalf("only %d spans", len(spans))
	}
	for _, s := range spans {
		texts = append(texts, "span name "+s.Name(), "status "+s.Status().Description)
		kv("span "+s.Name(), s.Attributes()...)
		for _, e := range s.Events() {
			texts = append(texts, "event "+e.Name)
			kv("event "+e.Name, e.Attributes...)
		}
		for _, l := range s.Links() {
			kv("link", l.Attributes...)
		}
	}
	rm := tel.collect(t)
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			for _, set := range metricAttributeSets(m.Data) {
				kv("metric "+m.Name, set.ToSlice()...)
			}
		}
	}
	for _, text := range texts {
		for _, secret := range secrets {
			if secret != "" && strings.Contains(text, secret) {
				t.Errorf("%s holds a secret (%.12s...)", text, secret)
			}
		}
	}
}

// metricAttributeSets returns the attribute sets of every point of data.
func metricAttributeSets(data metricdata.Aggregation) []attribute.Set {
	var out []attribute.Set
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	case metricdata.Gauge[int64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	case metricdata.Gauge[float64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	}
	return out
}
