package benchmarks_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// These tests are untimed checks that the contenders do the same work, so a
// benchmark that stopped measuring like for like fails go test.

// errorSnippet is the SDK's error-body bound (errors.MaxBodySnippet): every
// error body here must fit, so that the SDK decodes all of it, like raw.
const errorSnippet = 64 << 10

// TestContendersDecodeAlike checks that every operation succeeds through
// all three contenders, over loopback and in memory, with the same values.
func TestContendersDecodeAlike(t *testing.T) {
	ctx := context.Background()
	for name, cl := range map[string]*clients{"loopback": loopback(t, responder{}), "in-memory": inMemory(t, responder{})} {
		t.Run(name, func(t *testing.T) {
			for _, op := range operations {
				if err := op.sdk(ctx, cl.sdk); err != nil {
					t.Errorf("%s sdk: %v", op.name, err)
				}
				if err := op.raw(ctx, cl.raw); err != nil {
					t.Errorf("%s raw: %v", op.name, err)
				}
				if err := op.gen(ctx, cl.gen); err != nil {
					t.Errorf("%s generated: %v", op.name, err)
				}
			}

			u, err := cl.sdk.AccessMgmt.UpdateUser(ctx, userID, userParams)
			if err != nil {
				t.Fatal(err)
			}
			var ru rawUser
			if err := cl.raw.do(ctx, http.MethodPut, routeOf("accessmgmt.UpdateUser").path(userID), rawUserReq, &ru, problemFormat); err != nil {
				t.Fatal(err)
			}
			gu, err := cl.gen.UpdateUserWithResponse(ctx, userID, genUserReq)
			if err != nil || gu.JSON200 == nil {
				t.Fatal(err)
			}
			if u.ID != ru.ID || u.Email != ru.Email || u.MobileNumber != ru.MobileNumber || u.FirstName != ru.FirstName ||
				u.LastName != ru.LastName || gu.JSON200.Id != ru.ID || string(gu.JSON200.Email) != ru.Email || *gu.JSON200.LastName != ru.LastName {
				t.Errorf("users differ: sdk %+v, raw %+v, generated %+v", *u, ru, *gu.JSON200)
			}

			pm, err := cl.sdk.Payments.UpdatePaymentMethod(ctx, pmID, pmParams)
			if err != nil {
				t.Fatal(err)
			}
			var rpm rawPaymentMethod
			if err := cl.raw.do(ctx, http.MethodPatch, routeOf("payments.UpdatePaymentMethod").path(pmID), rawPMReq, &rpm, problemFormat); err != nil {
				t.Fatal(err)
			}
			gpm, err := cl.gen.UpdatePaymentMethodWithResponse(ctx, genPMID, genPMReq)
			if err != nil || gpm.JSON200 == nil {
				t.Fatal(err)
			}
			if !pm.CreatedAt.Equal(rpm.CreatedAt) || !pm.UpdatedAt.Equal(rpm.UpdatedAt) || !gpm.JSON200.UpdatedAt.Equal(rpm.UpdatedAt) ||
				rpm.CreatedAt.Nanosecond() != 512_000_000 || pm.BillingAccountID != rpm.BillingAccountID || gpm.JSON200.BillingAccountId.String() != rpm.BillingAccountID {
				t.Errorf("payment methods differ: sdk %+v, raw %+v, generated %+v", *pm, rpm, *gpm.JSON200)
			}

			a, err := cl.sdk.Customer.UpsertMemberAddress(ctx, memberID, addrParams)
			if err != nil {
				t.Fatal(err)
			}
			var ra rawMemberAddress
			if err := cl.raw.do(ctx, http.MethodPost, routeOf("customer.UpsertMemberAddress").path(memberID), rawAddrReq, &ra, codeMessageFormat); err != nil {
				t.Fatal(err)
			}
			if a.ID != ra.ID || *a.CreatedDate != *ra.CreatedDate || a.LastModifiedDate != nil || ra.LastModifiedDate != nil || *a.AddressFull != *ra.AddressFull {
				t.Errorf("addresses differ: sdk %+v, raw %+v", *a, ra)
			}
		})
	}
}

// TestRequestsAlike checks that the three contenders send the same JSON
// body, Content-Type, query (in any order) and bearer token for every
// operation.
func TestRequestsAlike(t *testing.T) {
	ctx := context.Background()
	var got []*http.Request
	var bodies []map[string]any
	rec := recorder(func(r *http.Request, body []byte) {
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil && len(body) > 0 { // a read sends none
			t.Errorf("%s %s: body %q: %v", r.Method, r.URL.Path, body, err)
		}
		got, bodies = append(got, r), append(bodies, m)
	})
	cl := inMemory(t, responder{})
	cl.sdk = newSDK(t, memBaseURL, rec)
	cl.raw = newRaw(memBaseURL, rec)
	cl.gen = newGen(t, memBaseURL, rec)
	for _, op := range operations {
		got, bodies = nil, nil
		_ = op.sdk(ctx, cl.sdk)
		_ = op.raw(ctx, cl.raw)
		_ = op.gen(ctx, cl.gen)
		if len(got) != 3 {
			t.Fatalf("%s: %d requests, want 3", op.name, len(got))
		}
		for i, r := range got {
			if r.Method != got[0].Method || r.URL.Path != got[0].URL.Path || r.URL.Query().Encode() != got[0].URL.Query().Encode() ||
				r.Header.Get("Content-Type") != got[0].Header.Get("Content-Type") || r.Header.Get("Authorization") != "Bearer "+benchToken {
				t.Errorf("%s: request %d is %s %s?%s, Content-Type %q, Authorization %q; want request 0's %s %s?%s, Content-Type %q, with the bearer token",
					op.name, i, r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), r.Header.Get("Authorization"),
					got[0].Method, got[0].URL.Path, got[0].URL.RawQuery, got[0].Header.Get("Content-Type"))
			}
			if a, b := mustJSON(t, bodies[i]), mustJSON(t, bodies[0]); a != b {
				t.Errorf("%s: body %d is %s, body 0 is %s", op.name, i, a, b)
			}
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// recorder is an in-memory transport that hands each request and its body
// to f before answering like responder.
type recorder func(*http.Request, []byte)

func (f recorder) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = readAll(r); err != nil {
			return nil, err
		}
	}
	f(r, body)
	return responder{}.RoundTrip(r)
}

// TestErrorsDecodeAlike checks that the SDK and raw both fail every error
// case with the whole body decoded: every serviceError or field error.
func TestErrorsDecodeAlike(t *testing.T) {
	ctx := context.Background()
	for _, ec := range errorCases {
		t.Run(ec.name, func(t *testing.T) {
			if n := len(ec.resp.body); n > errorSnippet {
				t.Fatalf("the body is %d bytes, more than the SDK decodes (%d)", n, errorSnippet)
			}
			cl := inMemory(t, responder{fixed: ec.resp})
			sdkErr, rawErr := ec.op.sdk(ctx, cl.sdk), ec.op.raw(ctx, cl.raw)
			var ae *apierrors.Error
			if !errors.As(sdkErr, &ae) {
				t.Fatalf("sdk: %v (%T), want *errors.Error", sdkErr, sdkErr)
			}
			var re *rawError
			if !errors.As(rawErr, &re) {
				t.Fatalf("raw: %v (%T), want *rawError", rawErr, rawErr)
			}
			var sdkN, rawN int
			switch {
			case re.Problem != nil && ae.Problem != nil:
				sdkN, rawN = len(ae.Problem.ServiceErrors), len(re.Problem.ServiceErrors)
				if ae.Problem.ServiceCode != re.Problem.ServiceCode || ae.Problem.ServiceMeta["provider"] != re.Problem.ServiceMeta["provider"] {
					t.Errorf("problems differ: sdk %+v, raw %+v", *ae.Problem, *re.Problem)
				}
			case re.CodeMessage != nil && ae.CodeMessage != nil:
				sdkN, rawN = len(ae.CodeMessage.Errors), len(re.CodeMessage.Errors)
			default:
				t.Fatalf("bodies decoded differently: sdk problem %v code/message %v; raw problem %v code/message %v",
					ae.Problem != nil, ae.CodeMessage != nil, re.Problem != nil, re.CodeMessage != nil)
			}
			if sdkN != ec.items || rawN != ec.items {
				t.Errorf("decoded %d (sdk) and %d (raw) items, want %d", sdkN, rawN, ec.items)
			}
			if ae.StatusCode != re.Status || ae.RequestID != re.RequestID {
				t.Errorf("sdk status %d request ID %q, raw %d %q", ae.StatusCode, ae.RequestID, re.Status, re.RequestID)
			}
		})
	}
}

// TestScaleSucceeds checks the scale rows send valid slugs: the SDK would
// refuse an invalid one without sending.
func TestScaleSucceeds(t *testing.T) {
	ctx := context.Background()
	cl := inMemory(t, responder{})
	for _, n := range scaleSizes {
		if err := cl.sdk.AccessMgmt.ReplaceRolePermissions(ctx, orgID, roleSlug, slugs(n)); err != nil {
			t.Errorf("%d slugs: %v", n, err)
		}
		if err := genReplace(ctx, cl.gen, slugs(n)); err != nil {
			t.Errorf("%d slugs, generated: %v", n, err)
		}
	}
}
