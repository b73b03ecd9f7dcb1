package client_test

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/internal/oprows"
	"github.com/memberplatform/memberplatform-go/observe"
	"github.com/memberplatform/memberplatform-go/option"
)

// deprecations is a DeprecationObserver that keeps every event.
type deprecations struct {
	observe.Nop
	mu     sync.Mutex
	events []observe.Deprecation
}

func (d *deprecations) Deprecated(_ context.Context, e observe.Deprecation) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.events = append(d.events, e)
}

func (d *deprecations) all() []observe.Deprecation {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.events)
}

// deprecatedAnswer answers status with body and the deprecation headers.
func deprecatedAnswer(status int, body string, header map[string]string) func(*http.Request) (*http.Response, error) {
	return func(r *http.Request) (*http.Response, error) {
		resp, err := areatest.JSON(status, body)(r)
		for k, v := range header {
			resp.Header.Set(k, v)
		}
		return resp, err
	}
}

// Figure 3 (issue 41): 50 calls each of two operations answered with
// Deprecation, Sunset and a deprecation Link: one Warn record per
// operation, naming it and the sunset date; 100 events with the three
// values.
func TestDeprecationWarnsOncePerOperation(t *testing.T) {
	t.Parallel()
	header := map[string]string{
		"Deprecation": "@1767225600", // 2026-01-01
		"Sunset":      "Wed, 01 Jul 2026 00:00:00 GMT",
		"Link":        `<https://example.com/changes>; rel="successor-version", <https://example.com/deprecations/v1>; rel="deprecation"; type="text/html"`,
	}
	m := areatest.NewMock(t)
	names := []string{"accessmgmt.UpdateUser", "payments.UpdatePaymentMethod"}
	for _, name := range names {
		op := operationNamed(name)
		m.On(op.method, op.path, deprecatedAnswer(oprows.Rows()[name].SuccessStatus(), op.response, header))
	}
	logs := newLogCapture(slog.LevelDebug)
	obs := &deprecations{}
	c := m.Client(option.WithLogger(slog.New(logs)), option.WithObserver(obs))
	var wg sync.WaitGroup
	for _, name := range names {
		op := operationNamed(name)
		for range 50 {
			wg.Go(func() {
				if _, err := op.call(t.Context(), c); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()

	var warned []string
	for _, r := range logs.records() {
		if r.Level != slog.LevelWarn {
			continue
		}
		warned = append(warned, r.Attrs["operation"].String())
		if r.Attrs["sunset"].String() != "2026-07-01" || r.Attrs["deprecated"].String() != "2026-01-01" ||
			r.Attrs["link"].String() != "https://example.com/deprecations/v1" {
			t.Errorf("Warn record %s %v: want sunset 2026-07-01, deprecated 2026-01-01 and the deprecation link", r.Msg, r.Attrs)
		}
	}
	slices.Sort(warned)
	if !slices.Equal(warned, names) {
		t.Errorf("Warn records for %v, want one for each of %v", warned, names)
	}
	events := obs.all()
	want := observe.Deprecation{Deprecated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Sunset: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC),
		Link: "https://example.com/deprecations/v1"}
	count := map[string]int{}
	for _, e := range events {
		count[e.Operation]++
		if e.Operation = ""; !e.Deprecated.Equal(want.Deprecated) || !e.Sunset.Equal(want.Sunset) || e.Link != want.Link {
			t.Errorf("event %+v, want %+v", e, want)
		}
	}
	if len(events) != 100 || count[names[0]] != 50 || count[names[1]] != 50 {
		t.Errorf("%d events (%v), want 50 per operation", len(events), count)
	}
}

// Headers the SDK cannot read never fail a call: an unreadable Deprecation
// still says deprecated, an unreadable Sunset is no date, "false" is not
// deprecated, and an error answer is reported too.
func TestDeprecationLenient(t *testing.T) {
	t.Parallel()
	op := operationNamed("accessmgmt.UpdateUser")
	for _, tt := range []struct {
		name       string
		status     int
		header     map[string]string
		events     int
		deprecated time.Time
		sunset     time.Time
		link       string
	}{
		{"true, sunset link", 200, map[string]string{"Deprecation": "true", "Link": `<https://e.example/s>;rel=sunset`}, 1, time.Time{}, time.Time{}, "https://e.example/s"},
		{"HTTP-date of the drafts", 200, map[string]string{"Deprecation": "Sun, 11 Nov 2018 23:59:59 GMT"}, 1, time.Date(2018, 11, 11, 23, 59, 59, 0, time.UTC), time.Time{}, ""},
		{"garbage", 200, map[string]string{"Deprecation": "@soon", "Sunset": "next year", "Link": "<broken"}, 1, time.Time{}, time.Time{}, ""},
		{"sunset alone", 200, map[string]string{"Sunset": "Wed, 01 Jul 2026 00:00:00 GMT"}, 1, time.Time{}, time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), ""},
		{"false", 200, map[string]string{"Deprecation": "false"}, 0, time.Time{}, time.Time{}, ""},
		{"none", 200, nil, 0, time.Time{}, time.Time{}, ""},
		{"on a 404", 404, map[string]string{"Deprecation": "@1767225600"}, 1, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Time{}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			body := op.response
			if tt.status != 200 {
				body = `{"title":"Not Found","status":404}`
			}
			m.On(op.method, op.path, deprecatedAnswer(tt.status, body, tt.header))
			obs := &deprecations{}
			_, err := op.call(t.Context(), m.Client(option.WithObserver(obs)))
			if (err != nil) != (tt.status != 200) {
				t.Fatalf("err = %v", err)
			}
			events := obs.all()
			if len(events) != tt.events {
				t.Fatalf("%d events %+v, want %d", len(events), events, tt.events)
			}
			if e := events; len(e) == 1 && (!e[0].Deprecated.Equal(tt.deprecated) || !e[0].Sunset.Equal(tt.sunset) || e[0].Link != tt.link || e[0].Operation != op.name) {
				t.Errorf("event %+v, want deprecated %v, sunset %v, link %q", e[0], tt.deprecated, tt.sunset, tt.link)
			}
		})
	}
}

// Among several observers, each DeprecationObserver is told, with the
// call's area; an observer that is none is skipped.
func TestDeprecationObserverAmongOthers(t *testing.T) {
	t.Parallel()
	op := operationNamed("payments.UpdatePaymentMethod")
	m := areatest.NewMock(t)
	m.On(op.method, op.path, deprecatedAnswer(oprows.Rows()[op.name].SuccessStatus(), op.response, map[string]string{"Deprecation": "true"}))
	first, second := &deprecations{}, &deprecations{}
	if _, err := op.call(t.Context(), m.Client(option.WithObserver(first), option.WithObserver(observe.Nop{}), option.WithObserver(second))); err != nil {
		t.Fatal(err)
	}
	for i, d := range []*deprecations{first, second} {
		if e := d.all(); len(e) != 1 || e[0].Operation != op.name || e[0].Area != "payments" || !e[0].Deprecated.IsZero() {
			t.Errorf("observer %d: events %+v, want one for %s in area payments, no date", i, e, op.name)
		}
	}
}
