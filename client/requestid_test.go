package client_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/option"
)

// client.RequestID reads a successful call's ID from the same headers as
// the errors do, so behind an API gateway (X-Amzn-RequestId) it is not "".
func TestRequestIDReadsTheSameHeadersAsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header http.Header
		want   string
	}{
		{"X-Request-Id", http.Header{"X-Request-Id": {"req-1"}}, "req-1"},
		{"API Gateway", http.Header{"X-Amzn-Requestid": {"c6af9ac6-7b61-11e6-9a41-93e8deadbeef"}}, "c6af9ac6-7b61-11e6-9a41-93e8deadbeef"},
		{"S3 style", http.Header{"X-Amz-Request-Id": {"4442587FB7D0A2F9"}}, "4442587FB7D0A2F9"},
		{"correlation", http.Header{"X-Correlation-Id": {"corr-7"}}, "corr-7"},
		{"traceparent", http.Header{"Traceparent": {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
		{"X-Request-Id wins", http.Header{"X-Amzn-Requestid": {"gw"}, "X-Request-Id": {"app"}}, "app"},
		{"none", http.Header{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			respond := func(status int) httpmock.Responder {
				return func(*http.Request) (*http.Response, error) {
					resp := httpmock.NewStringResponse(status, `{"code":"INTERNAL","message":"boom"}`)
					resp.Header = tt.header.Clone()
					resp.Header.Set("Content-Type", "application/json")
					return resp, nil
				}
			}
			m := areatest.NewMock(t)
			m.On(http.MethodGet, usersPath+"/ok", respond(http.StatusOK))
			m.On(http.MethodGet, usersPath+"/fail", respond(http.StatusInternalServerError))
			c := m.Client()

			var resp *http.Response
			if err := c.Execute(t.Context(), http.MethodGet, usersPath+"/ok", nil, nil, option.WithResponseInto(&resp)); err != nil {
				t.Fatal(err)
			}
			if got := client.RequestID(resp); got != tt.want {
				t.Errorf("RequestID = %q, want %q", got, tt.want)
			}
			err := c.Execute(t.Context(), http.MethodGet, usersPath+"/fail", nil, nil)
			var apiErr *apierrors.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v", err)
			}
			if apiErr.RequestID != tt.want {
				t.Errorf("the error's RequestID = %q, want %q as RequestID reads", apiErr.RequestID, tt.want)
			}
		})
	}
	if got := client.RequestID(nil); got != "" {
		t.Errorf("RequestID(nil) = %q", got)
	}
}
