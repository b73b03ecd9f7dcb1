package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/oapi-codegen/nullable"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
)

// The benchmarks compare each SDK operation with the same request written by
// hand with net/http and encoding/json, against the same loopback server,
// both over a cleanhttp pooled transport (the SDK's default). Sub-benchmarks:
//
//	sdk, raw                    one goroutine
//	sdk-parallel, raw-parallel  b.RunParallel (GOMAXPROCS goroutines)
//
// go run ./internal/cmd/benchreport turns the results into the budget table.

const (
	benchToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzdmMtYmlsbGluZyIsImV4cCI6NDEwMjQ0NDgwMH0.c2lnbmF0dXJlLWJ5dGVzLWZvci1iZW5jaG1hcmtpbmctb25seQ"
	userID     = "user_01E4ZCR3C56J083X43JQXF3JK5"
	orgID      = "org_01EHZNVPK3SFK441A1RGBFSHRT"
	roleSlug   = "org-billing-admin"
	pmID       = "6f1c2a4e-8b3d-4f5a-9c7e-2d1b0a9f8e7d"
	memberID   = "3b9d6c1e-2f4a-4e8b-a7c5-9d0e1f2a3b4c"
)

// Realistic response bodies, as the platform would send them.
var (
	userBody  = []byte(`{"id":"user_01E4ZCR3C56J083X43JQXF3JK5","email":"ada.lovelace@example.com","mobileNumber":"+61412345678","firstName":"Ada","lastName":"Lovelace","emailVerified":true,"createdAt":"2024-03-01T10:15:30.123Z","updatedAt":"2025-01-15T08:00:00Z"}`)
	permsBody = []byte(`{"organizationId":"org_01EHZNVPK3SFK441A1RGBFSHRT","slug":"org-billing-admin","permissions":["billing:read","billing:write","invoices:read","invoices:write","members:read","payment-methods:read","payment-methods:write","reports:read"]}`)
	pmBody    = []byte(`{"id":"6f1c2a4e-8b3d-4f5a-9c7e-2d1b0a9f8e7d","billingAccountId":"ba_01HZX3J8Q2W4E6R8T0Y2U4I6O8","lastFourDigits":"4242","cardBrand":"visa","expDate":"08/2029","primary":true,"createdAt":"2024-06-11T04:22:10.512Z","updatedAt":"2025-02-03T21:09:44Z"}`)
	addrBody  = []byte(`{"id":"a7e4c2d0-1b3f-4a5c-8e9d-0f1a2b3c4d5e","tenantId":"t_9f8e7d6c","addressFull":"Unit 4, 12 Example Street, Surry Hills NSW 2010, Australia","addressLineOne":"12 Example Street","addressLineTwo":"Unit 4","state":"NSW","suburb":"Surry Hills","postcode":"2010","country":"AU","createdDate":"2023-11-20T01:02:03Z","lastModifiedDate":null}`)

	permissions = []string{"billing:read", "billing:write", "invoices:read", "invoices:write", "members:read", "payment-methods:read", "payment-methods:write", "reports:read"}
	addrParams  = customer.UpsertMemberAddressParams{
		AddressFull: new("Unit 4, 12 Example Street, Surry Hills NSW 2010, Australia"), AddressLineOne: "12 Example Street",
		AddressLineTwo: nullable.NewNullableWithValue("Unit 4"), State: "NSW", Suburb: "Surry Hills", Postcode: "2010", Country: "AU",
	}
	userParams = accessmgmt.UpdateUserParams{FirstName: new("Ada"), LastName: new("Lovelace"), MobileNumber: new("+61412345678")}
	pmParams   = payments.UpdatePaymentMethodParams{SetAsPrimary: new(true), ExpDate: new("08/2029")}
)

var (
	jsonCT    = []string{"application/json"}
	requestID = []string{"req-7f3a9c2e-4b1d-4e8f-a6c5-0d9e8f7a6b5c"}
)

// serve answers like the platform: it reads the request body and returns the
// operation's body with a request ID.
func serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	p := r.URL.Path
	var body []byte
	switch {
	case strings.HasPrefix(p, "/auth/access-management/users/"):
		body = userBody
	case strings.HasSuffix(p, "/permissions"):
		body = permsBody
	case strings.HasPrefix(p, "/payment-methods/"):
		body = pmBody
	case strings.HasPrefix(p, "/customer/members/"):
		body = addrBody
	default:
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h["Content-Type"] = jsonCT
	h["X-Request-Id"] = requestID
	_, _ = w.Write(body)
}

// rawClient is the baseline: what a careful user writes with net/http and
// encoding/json, sending the same headers as the SDK.
type rawClient struct {
	hc   *http.Client
	base string
	ua   string
	auth string
}

func (rc *rawClient) do(ctx context.Context, method, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, rc.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", rc.ua)
	req.Header.Set("Accept", "application/json, application/problem+json")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", rc.auth)
	resp, err := rc.hc.Do(req)
	if err != nil {
		return err
	}
	defer func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}

type operation struct {
	name string
	sdk  func(context.Context, *client.Client) error
	raw  func(context.Context, *rawClient) error
}

var operations = []operation{
	{
		name: "UpdateUser",
		sdk: func(ctx context.Context, c *client.Client) error {
			_, err := c.AccessMgmt.UpdateUser(ctx, userID, userParams)
			return err
		},
		raw: func(ctx context.Context, rc *rawClient) error {
			var u accessmgmt.ProviderUser
			return rc.do(ctx, http.MethodPut, "/auth/access-management/users/"+url.PathEscape(userID), userParams, &u)
		},
	},
	{
		name: "ReplaceRolePermissions",
		sdk: func(ctx context.Context, c *client.Client) error {
			return c.AccessMgmt.ReplaceRolePermissions(ctx, orgID, roleSlug, permissions)
		},
		raw: func(ctx context.Context, rc *rawClient) error {
			in := struct {
				Permissions []string `json:"permissions"`
			}{permissions}
			return rc.do(ctx, http.MethodPut, "/auth/access-management/organizations/"+url.PathEscape(orgID)+"/roles/"+url.PathEscape(roleSlug)+"/permissions", in, nil)
		},
	},
	{
		name: "UpdatePaymentMethod",
		sdk: func(ctx context.Context, c *client.Client) error {
			_, err := c.Payments.UpdatePaymentMethod(ctx, pmID, pmParams)
			return err
		},
		raw: func(ctx context.Context, rc *rawClient) error {
			var pm payments.PaymentMethod
			return rc.do(ctx, http.MethodPatch, "/payment-methods/"+url.PathEscape(pmID), pmParams, &pm)
		},
	},
	{
		name: "UpsertMemberAddress",
		sdk: func(ctx context.Context, c *client.Client) error {
			_, err := c.Customer.UpsertMemberAddress(ctx, memberID, addrParams)
			return err
		},
		raw: func(ctx context.Context, rc *rawClient) error {
			var a customer.MemberAddress
			return rc.do(ctx, http.MethodPost, "/customer/members/"+url.PathEscape(memberID)+"/address", addrParams, &a)
		},
	},
}

type fixture struct {
	sdk *client.Client
	raw *rawClient
}

func newFixture(tb testing.TB, opts ...option.RequestOption) *fixture {
	tb.Helper()
	srv := httptest.NewServer(http.HandlerFunc(serve))
	tb.Cleanup(srv.Close)
	sdkRT := cleanhttp.DefaultPooledTransport()
	rawRT := cleanhttp.DefaultPooledTransport()
	tb.Cleanup(sdkRT.CloseIdleConnections)
	tb.Cleanup(rawRT.CloseIdleConnections)
	c, err := client.New(append([]option.RequestOption{
		option.WithBaseURL(srv.URL),
		option.WithTokenSource(client.StaticToken(benchToken)),
		option.WithTransport(sdkRT),
	}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	return &fixture{
		sdk: c,
		raw: &rawClient{hc: &http.Client{Transport: rawRT}, base: srv.URL, ua: core.UserAgent(""), auth: "Bearer " + benchToken},
	}
}

func benchOp(b *testing.B, op operation) {
	f := newFixture(b)
	ctx := context.Background()
	// Warm both connection pools and the token cache, and check that both
	// paths succeed before timing anything.
	if err := op.sdk(ctx, f.sdk); err != nil {
		b.Fatal(err)
	}
	if err := op.raw(ctx, f.raw); err != nil {
		b.Fatal(err)
	}
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := op.sdk(ctx, f.sdk); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := op.raw(ctx, f.raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := op.sdk(ctx, f.sdk); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("raw-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := op.raw(ctx, f.raw); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

func BenchmarkUpdateUser(b *testing.B)             { benchOp(b, operations[0]) }
func BenchmarkReplaceRolePermissions(b *testing.B) { benchOp(b, operations[1]) }
func BenchmarkUpdatePaymentMethod(b *testing.B)    { benchOp(b, operations[2]) }
func BenchmarkUpsertMemberAddress(b *testing.B)    { benchOp(b, operations[3]) }

// BenchmarkTransport isolates go-retryablehttp: the same PUT through
// http.Client.Do and through a retryablehttp.Client built per call (as the
// SDK does), same transport, same server, no JSON on either side.
func BenchmarkTransport(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(serve))
	b.Cleanup(srv.Close)
	rt := cleanhttp.DefaultPooledTransport()
	b.Cleanup(rt.CloseIdleConnections)
	hc := &http.Client{Transport: rt}
	target := srv.URL + "/auth/access-management/users/" + userID
	body := []byte(`{"firstName":"Ada"}`)
	ctx := context.Background()
	drain := func(resp *http.Response) {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	b.Run("nethttp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req, err := http.NewRequestWithContext(ctx, http.MethodPut, target, bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			drain(resp)
		}
	})
	b.Run("retryablehttp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodPut, target, body)
			if err != nil {
				b.Fatal(err)
			}
			rc := &retryablehttp.Client{HTTPClient: hc, RetryMax: 3, CheckRetry: retryablehttp.DefaultRetryPolicy, Backoff: retryablehttp.DefaultBackoff}
			resp, err := rc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			drain(resp)
		}
	})
}

// memTransport answers every request in memory with the UpdateUser body, so
// BenchmarkPipeline measures the SDK's own CPU and allocations without
// network noise.
type memTransport struct{}

func (memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": jsonCT, "X-Request-Id": requestID},
		Body:          io.NopCloser(bytes.NewReader(userBody)),
		ContentLength: int64(len(userBody)), Request: r,
	}, nil
}

// BenchmarkPipeline runs UpdateUser over an in-memory transport: sdk with
// the cached static token, sdk-notoken without a token source (their
// difference is the cached-token overhead), and raw, the hand-written
// baseline over the same transport.
func BenchmarkPipeline(b *testing.B) {
	ctx := context.Background()
	withToken, err := client.New(option.WithBaseURL("http://127.0.0.1:1"), option.WithTransport(memTransport{}),
		option.WithTokenSource(client.StaticToken(benchToken)))
	if err != nil {
		b.Fatal(err)
	}
	noToken, err := client.New(option.WithBaseURL("http://127.0.0.1:1"), option.WithTransport(memTransport{}),
		option.WithTokenSource(nil))
	if err != nil {
		b.Fatal(err)
	}
	raw := &rawClient{hc: &http.Client{Transport: memTransport{}}, base: "http://127.0.0.1:1", ua: core.UserAgent(""), auth: "Bearer " + benchToken}
	for name, run := range map[string]func() error{
		"sdk":         func() error { return operations[0].sdk(ctx, withToken) },
		"sdk-notoken": func() error { return operations[0].sdk(ctx, noToken) },
		"raw":         func() error { return operations[0].raw(ctx, raw) },
	} {
		if err := run(); err != nil {
			b.Fatal(name, err)
		}
	}
	// Fixed order, so the two SDK variants run next to each other.
	b.Run("sdk", func(b *testing.B) { benchLoop(b, func() error { return operations[0].sdk(ctx, withToken) }) })
	b.Run("sdk-notoken", func(b *testing.B) { benchLoop(b, func() error { return operations[0].sdk(ctx, noToken) }) })
	b.Run("raw", func(b *testing.B) { benchLoop(b, func() error { return operations[0].raw(ctx, raw) }) })
}

func benchLoop(b *testing.B, run func() error) {
	b.ReportAllocs()
	for b.Loop() {
		if err := run(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOperationsAgree is a quick, untimed check that every benchmarked
// operation succeeds both ways, so a broken benchmark fails plain go test.
func TestOperationsAgree(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, op := range operations {
		if err := op.sdk(ctx, f.sdk); err != nil {
			t.Errorf("%s sdk: %v", op.name, err)
		}
		if err := op.raw(ctx, f.raw); err != nil {
			t.Errorf("%s raw: %v", op.name, err)
		}
	}
}
