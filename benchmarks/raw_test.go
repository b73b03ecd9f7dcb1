package benchmarks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"time"
)

// The raw contender: what a careful user writes with net/http and
// encoding/json alone, decoding into plain structs of its own (no custom
// UnmarshalJSON, time.Time where the contract says date-time) and sending
// the same headers as the SDK. It never uses the SDK's types.

type rawUser struct {
	ID           string `json:"id"`
	Email        string `json:"email"`
	MobileNumber string `json:"mobileNumber"`
	FirstName    string `json:"firstName"`
	LastName     string `json:"lastName"`
}

type rawUpdateUser struct {
	MobileNumber *string `json:"mobileNumber,omitempty"`
	Email        *string `json:"email,omitempty"`
	FirstName    *string `json:"firstName,omitempty"`
	LastName     *string `json:"lastName,omitempty"`
}

type rawRolePermissions struct {
	Permissions []string `json:"permissions"`
}

type rawPaymentMethod struct {
	ID               string    `json:"id"`
	BillingAccountID string    `json:"billingAccountId"`
	LastFourDigits   string    `json:"lastFourDigits"`
	CardBrand        string    `json:"cardBrand"`
	ExpDate          string    `json:"expDate"`
	Primary          bool      `json:"primary"`
	CreatedAt        time.Time `json:"createdAt"`
	UpdatedAt        time.Time `json:"updatedAt"`
}

type rawUpdatePaymentMethod struct {
	SetAsPrimary *bool   `json:"setAsPrimary,omitempty"`
	ExpDate      *string `json:"expDate,omitempty"`
}

// rawMemberAddress keeps the dates as strings: the contract does not give
// their format (the SDK and the generated client keep them as strings too).
type rawMemberAddress struct {
	ID               string  `json:"id"`
	TenantID         string  `json:"tenantId"`
	AddressFull      *string `json:"addressFull"`
	AddressLineOne   *string `json:"addressLineOne"`
	AddressLineTwo   *string `json:"addressLineTwo"`
	State            *string `json:"state"`
	Suburb           *string `json:"suburb"`
	Postcode         *string `json:"postcode"`
	Country          *string `json:"country"`
	CreatedDate      *string `json:"createdDate"`
	LastModifiedDate *string `json:"lastModifiedDate"`
}

type rawUpsertAddress struct {
	AddressFull    *string `json:"addressFull,omitempty"`
	AddressLineOne string  `json:"addressLineOne"`
	AddressLineTwo *string `json:"addressLineTwo,omitempty"`
	State          string  `json:"state"`
	Suburb         string  `json:"suburb"`
	Postcode       string  `json:"postcode"`
	Country        string  `json:"country"`
}

// Error bodies: the problem format (operations 1 to 3) and the code/message
// format (operation 4).

type rawServiceError struct {
	Detail  string `json:"detail"`
	Pointer string `json:"pointer"`
}

type rawProblem struct {
	Type          string            `json:"type"`
	Title         string            `json:"title"`
	Status        int               `json:"status"`
	Detail        string            `json:"detail"`
	Instance      string            `json:"instance"`
	ServiceCode   string            `json:"serviceCode"`
	ServiceMeta   map[string]any    `json:"serviceMeta"`
	ServiceErrors []rawServiceError `json:"serviceErrors"`
}

type rawFieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

type rawCodeMessage struct {
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Errors  []rawFieldError `json:"errors"`
}

// rawError is a non-2xx answer with its decoded body (nil when the body was
// not JSON of the expected format).
type rawError struct {
	Status      int
	RequestID   string
	Problem     *rawProblem
	CodeMessage *rawCodeMessage
}

func (e *rawError) Error() string { return "memberplatform raw: status " + strconv.Itoa(e.Status) }

// rawMaxErrorBody bounds how much of an error body is decoded, and
// rawMaxDrain how much of the rest is read to keep the connection.
const (
	rawMaxErrorBody = 1 << 20
	rawMaxDrain     = 64 << 10
)

type errFormat int

const (
	problemFormat errFormat = iota
	codeMessageFormat
)

type rawClient struct {
	hc   *http.Client
	base string
	ua   string
	auth string
}

func newRaw(baseURL string, rt http.RoundTripper) *rawClient {
	return &rawClient{
		hc:   &http.Client{Transport: rt},
		base: baseURL,
		ua:   "memberplatform-go-raw/0.0.0 (" + runtime.Version() + "; " + runtime.GOOS + "/" + runtime.GOARCH + ")",
		auth: "Bearer " + benchToken,
	}
}

// do sends in as the JSON body, or no body for a nil in (a read), and
// decodes the 2xx answer into out.
func (rc *rawClient) do(ctx context.Context, method, path string, in, out any, ef errFormat) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, rc.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", rc.ua)
	req.Header.Set("Accept", "application/json, application/problem+json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", rc.auth)
	resp, err := rc.hc.Do(req)
	if err != nil {
		return err
	}
	defer func() {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, rawMaxDrain))
		_ = resp.Body.Close()
	}()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := &rawError{Status: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id")}
		dec := json.NewDecoder(io.LimitReader(resp.Body, rawMaxErrorBody))
		switch ef {
		case problemFormat:
			var p rawProblem
			if dec.Decode(&p) == nil {
				e.Problem = &p
			}
		case codeMessageFormat:
			var cm rawCodeMessage
			if dec.Decode(&cm) == nil {
				e.CodeMessage = &cm
			}
		}
		return e
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}
