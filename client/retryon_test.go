package client_test

import (
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/option"
)

// answersThen answers each request with the next status of first (a
// problem body), then 200 with body.
func answersThen(n *atomic.Int32, body string, first ...int) func(*http.Request) (*http.Response, error) {
	return func(r *http.Request) (*http.Response, error) {
		if i := int(n.Add(1)) - 1; i < len(first) {
			return areatest.Problem(first[i], `{"title":"`+http.StatusText(first[i])+`","status":`+strconv.Itoa(first[i])+`}`)(r)
		}
		return areatest.JSON(http.StatusOK, body)(r)
	}
}

// Figure 5 (issue 41): the statuses a caller adds or removes.
func TestRetryOnStatuses(t *testing.T) {
	t.Parallel()
	op := operationNamed("accessmgmt.UpdateUser")
	retrying := []option.RequestOption{option.WithMaxRetries(3), option.WithRetryBackoff(time.Millisecond, 2*time.Millisecond)}
	for _, tt := range []struct {
		name       string
		client     []option.RequestOption
		call       []option.RequestOption
		first      int
		wantStatus int // 0: success
		wantSent   int32
	}{
		{"WithRetryOn(409): 409 then 200", []option.RequestOption{option.WithRetryOn(409)}, nil, 409, 0, 2},
		{"per call WithRetryOn(409)", nil, []option.RequestOption{option.WithRetryOn(409)}, 409, 0, 2},
		{"default: 409 not retried", nil, nil, 409, 409, 1},
		{"WithoutRetryOn(503): 503 not retried", []option.RequestOption{option.WithoutRetryOn(503)}, nil, 503, 503, 1},
		{"default: 503 retried", nil, nil, 503, 0, 2},
		{"a call's WithoutRetryOn over the client's WithRetryOn", []option.RequestOption{option.WithRetryOn(409)}, []option.RequestOption{option.WithoutRetryOn(409)}, 409, 409, 1},
		{"the last for a status wins", nil, []option.RequestOption{option.WithoutRetryOn(409, 503), option.WithRetryOn(409)}, 409, 0, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			var n atomic.Int32
			m.On(op.method, op.path, answersThen(&n, op.response, tt.first))
			_, err := op.call(t.Context(), m.Client(append(retrying, tt.client...)...), tt.call...)
			if sent := n.Load(); sent != tt.wantSent {
				t.Errorf("%d attempts, want %d", sent, tt.wantSent)
			}
			var ae *apierrors.Error
			switch {
			case tt.wantStatus == 0 && err != nil:
				t.Errorf("err = %v, want success", err)
			case tt.wantStatus != 0 && (!errors.As(err, &ae) || ae.StatusCode != tt.wantStatus || ae.Attempts != 1):
				t.Errorf("err = %v, want the %d after 1 attempt", err, tt.wantStatus)
			}
		})
	}
}

// A POST through Execute is resent after an added status only with
// WithIdempotent: WithRetryOn does not make a request safe to repeat.
func TestRetryOnKeepsPOSTUnretried(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		opts []option.RequestOption
		want int32
	}{
		{[]option.RequestOption{option.WithRetryOn(409)}, 1},
		{[]option.RequestOption{option.WithRetryOn(409), option.WithIdempotent()}, 2},
	} {
		m := areatest.NewMock(t)
		var n atomic.Int32
		m.On(http.MethodPost, "/auth/access-management/users", answersThen(&n, `{}`, 409))
		c := m.Client(option.WithMaxRetries(3), option.WithRetryBackoff(time.Millisecond, 2*time.Millisecond))
		_ = c.Execute(t.Context(), http.MethodPost, "/auth/access-management/users", `{"email":"a@example.com"}`, nil, tt.opts...)
		if got := n.Load(); got != tt.want {
			t.Errorf("%d options: %d attempts, want %d", len(tt.opts), got, tt.want)
		}
	}
}

// A retry after a status of WithRetryOn is paid from the retry budget like
// any: a budget too small for one refuses it.
func TestRetryOnSpendsTheBudget(t *testing.T) {
	t.Parallel()
	op := operationNamed("accessmgmt.UpdateUser")
	m := areatest.NewMock(t)
	var n atomic.Int32
	m.On(op.method, op.path, answersThen(&n, op.response, 409))
	c := m.Client(option.WithMaxRetries(3), option.WithRetryBackoff(time.Millisecond, 2*time.Millisecond),
		option.WithRetryBudget(option.RetryBudget{Capacity: 5, ErrorCost: 10}), option.WithRetryOn(409))
	_, err := op.call(t.Context(), c)
	if !errors.Is(err, apierrors.ErrRetryBudgetExhausted) || !errors.Is(err, apierrors.ErrConflict) || n.Load() != 1 {
		t.Errorf("err = %v after %d attempts, want the 409, refused a retry by the budget, after 1", err, n.Load())
	}
}

// Only error statuses can be retried or not: anything else is refused.
func TestRetryOnRefusesOtherStatuses(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	c := m.Client()
	op := operationNamed("accessmgmt.UpdateUser")
	for _, o := range []option.RequestOption{option.WithRetryOn(200), option.WithRetryOn(409, 600), option.WithoutRetryOn(399)} {
		if _, err := op.call(t.Context(), c, o); !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Errorf("err = %v, want refused", err)
		}
	}
	if n := m.Calls(); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}
