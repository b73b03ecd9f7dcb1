// Package oprows holds one row per declared operation (core.Operations):
// how a test calls it through the public client, what it sends, what a
// server answers and what the call returns, and its own error answers. The
// client's shared operation checks (options, timeouts, retries, malformed
// bodies) and its error-contract cases run over every row; the benchmarks'
// SDK contender is the row's call. A declared operation without a row fails
// client.TestEveryOperationHasARow, naming this package's rows.go.
package oprows

import (
	"context"
	"iter"
	"net/url"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/option"
)

// Row is one operation as the shared tests call it. Its name, method, path
// and error format come from the operation's declaration.
type Row struct {
	IDs   []string   // the test IDs the path's placeholders take, in order
	Query url.Values // the query the call sends, nil for none
	Body  string     // the JSON body the call sends, "" for none (a read)
	// Status and Response are a 2xx answer (Status 0 is 200), Want what
	// Call returns for it (nil for an operation that returns no value).
	Status   int
	Response string
	Want     any
	// Call calls the operation with the row's IDs, query and body.
	Call func(ctx context.Context, c *client.Client, opts ...option.RequestOption) (any, error)
	// Retryable is an answer the SDK retries (a 5xx in the operation's format).
	Retryable Answer
	// Malformed are 2xx bodies (answered with Status) Call does not decode;
	// none for an operation that accepts any 2xx body.
	Malformed []string
	// Errors are the operation's own error answers, checked beside its
	// format's (FormatErrors).
	Errors []ErrorCase
	// Refused are calls with input the operation refuses before sending
	// (at least one; none for an operation without input of the caller's):
	// client.TestEveryOperationIsObservedWhenRefused checks each is
	// observed and named as Fields says.
	Refused []Refusal
	// A list's (core.Operation.List), which List fills but NextPage:
	// Response is its first page, with a next cursor, and NextPage the
	// page that cursor answers, the last; Call returns the first page
	// (*memberplatform.Page), Items and Pages range over the list through
	// its two methods. client.TestEveryListIterates runs the iteration
	// checks on them.
	NextPage string
	Items    func(ctx context.Context, c *client.Client, opts ...option.RequestOption) iter.Seq2[any, error]
	Pages    func(ctx context.Context, c *client.Client, opts ...option.RequestOption) iter.Seq2[any, error]
}

// Refusal is a call with input the SDK refuses before sending, and the
// fields its *errors.ValidationError names, in order.
type Refusal struct {
	Name   string
	Call   func(ctx context.Context, c *client.Client) error
	Fields []string
}

// Answer is a canned HTTP answer.
type Answer struct {
	Status int
	Body   string
}

// SuccessStatus is the status of r's 2xx answer.
func (r Row) SuccessStatus() int {
	if r.Status == 0 {
		return 200
	}
	return r.Status
}

// Path is d's path with its placeholders filled with r's IDs, escaped: the
// path the call requests (r.Query is its query).
func (r Row) Path(d *core.Operation) string {
	segs := strings.Split(d.Path, "/")
	ids := r.IDs
	for i, seg := range segs {
		if strings.HasPrefix(seg, "{") && len(ids) > 0 {
			segs[i], ids = url.PathEscape(ids[0]), ids[1:]
		}
	}
	return strings.Join(segs, "/")
}

// ErrorCase is an error answer and what the SDK's error must report.
type ErrorCase struct {
	Name   string
	Status int
	Header map[string]string // beyond Content-Type, which the format gives
	Body   string
	Kind   error   // Kind()
	Also   []error // further kinds errors.Is matches
	Title  string  // Title(), such as "NOT_FOUND (40400001)"
	Detail string  // Detail()
	Fields []apierrors.FieldError
	// Requests is how many requests the server sees, 0 for 1 (a 401
	// refreshes the token and resends once).
	Requests int
	Check    func(t *testing.T, e *apierrors.Error) // further checks, if any
}

// Rows returns the row of every declared operation that has one, by name.
func Rows() map[string]Row { return rows }

// ContentType is the content type of error answers in format f.
func ContentType(f core.ErrorFormat) string {
	if f == core.CodeMessageErrors {
		return "application/json"
	}
	return "application/problem+json"
}
