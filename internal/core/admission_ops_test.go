package core

import (
	"context"
	stderrors "errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	memberplatform "github.com/memberplatform/memberplatform-go"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/fakeclock"
	"github.com/memberplatform/memberplatform-go/observe"
)

// Operation keys of the tests: two operations of one area.
const (
	failingOp = "accessmgmt.ReplaceRolePermissions"
	healthyOp = "accessmgmt.UpdateUser"
)

// One operation failing whole beside a healthy sibling, each share of the
// calls from 50 % to 99 %, for 4 s: the sibling never loses an attempt,
// first or retry, while the failing one is shed on its own (its attempts
// after the first second nearly all refused, probes aside).
func TestAdmissionShedsTheFailingOperationOnItsOwn(t *testing.T) {
	for _, failingPct := range []int{50, 80, 95, 99} {
		t.Run(fmt.Sprintf("%d%%", failingPct), func(t *testing.T) {
			clk := fakeclock.New()
			draw := 0.0 // every draw refuses when p > 0
			a := testAdmission(clk, &draw)
			var sent, asked int
			for ms := range 4000 { // 4 s, 10 attempts a millisecond
				for i := range 10 {
					n := ms*10 + i
					if n%100 >= failingPct {
						if _, refused := a.admitOp(healthyOp, i%2 == 0); refused {
							t.Fatalf("the healthy operation refused at %v (%d%% of calls failing)", time.Duration(ms)*time.Millisecond, failingPct)
						}
						a.answeredOp(healthyOp, accepted, 0, 0)
						continue
					}
					r, refused := a.admitOp(failingOp, i%2 == 0)
					if ms >= 1000 {
						asked++
					}
					if refused {
						if r.area || r.reason != failedUnavailable || r.status != http.StatusInternalServerError {
							t.Fatalf("refusal %+v, want the operation's own 500s, not the area's", r)
						}
						continue
					}
					if ms >= 1000 {
						sent++
					}
					a.answeredOp(failingOp, failedUnavailable, http.StatusInternalServerError, 0)
				}
				clk.Add(time.Millisecond)
			}
			if perCall := float64(sent) / float64(asked); perCall > 0.05 {
				t.Fatalf("the failing operation sent %d of %d attempts after its first second (%.3f), want nearly all refused", sent, asked, perCall)
			}
			if r := a.ShedRatio(); r < 0.9*float64(failingPct)/100 {
				t.Fatalf("the area's ShedRatio %.2f, want the failing operation's share of its attempts, refused", r)
			}
		})
	}
}

// Every operation of the area failing: once no answer was accepted for
// admissionDownAfter the area is down, and an operation without a failure
// of its own (too rare to be judged) is shed with it, for the area's
// failures. An accepted probe of any operation brings the area back.
func TestAdmissionShedsAnAreaThatIsDown(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	a := testAdmission(clk, &draw)
	feedOp(a, failingOp, 30, 0)
	feedOp(a, healthyOp, 30, 0)
	a.admitOp(failingOp, true) // their probes
	a.admitOp(healthyOp, true)
	if r, refused := a.admitOp(failingOp, true); !refused || r.area {
		t.Fatalf("right after the failures: refused %v %+v, want the operation's own refusal", refused, r)
	}
	if _, refused := a.admitOp("accessmgmt.Rare", false); refused {
		t.Fatal("a rare operation's retry refused before the area was judged down")
	}
	clk.Add(admissionDownAfter)
	r, refused := a.admitOp("accessmgmt.Rare", false)
	if !refused || !r.area || r.reason != failedUnavailable {
		t.Fatalf("rare operation in a down area: refused %v %+v, want the area's refusal", refused, r)
	}
	if r, refused := a.admitOp(failingOp, false); !refused || !r.area {
		t.Fatalf("failing operation in a down area: refused %v %+v, want a refusal reported as the area's", refused, r)
	}
	if a.ShedRatio() <= 0 {
		t.Fatal("ShedRatio 0 while the area is down")
	}
	if _, refused := a.admitOp(healthyOp, true); refused {
		t.Fatal("the probe due was refused")
	}
	a.answeredOp(healthyOp, accepted, 0, 0) // the backend heals
	if _, refused := a.admitOp("accessmgmt.Rare", false); refused {
		t.Fatal("an operation without failures of its own refused after the area answered again")
	}
	if _, refused := a.admitOp(failingOp, false); !refused {
		t.Fatal("the other operation reopened without a probe of its own answered")
	}
	clk.Add(AdmissionProbeInterval)
	a.admitOp(failingOp, true)
	a.answeredOp(failingOp, accepted, 0, 0)
	wantAllAdmitted(t, a, "both operations answered")
	if a.watchUntil.Load() != 0 {
		t.Fatal("healthy answers still counted after every operation reopened")
	}
}

// A call refused after attempt timeouts is a timeout, as they were:
// Timeout() true, ErrorType "timeout", ErrTransport and ErrLoadShed.
func TestAdmissionShedAfterTimeoutsIsATimeout(t *testing.T) {
	release := make(chan struct{})
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		select { // never answered in time
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	clk := fakeclock.New()
	draw := 0.0
	rec := &shedRecorder{}
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		other(s).Admission = testAdmissionWithoutProbes(clk, &draw)
		s.AttemptTimeout = 20 * time.Millisecond
		s.Observer = rec
	})
	var err error
	for range 3 * AdmissionMinFailures {
		if err = Do[any](context.Background(), c, rtCall(rtPutOp, nil), nil); stderrors.Is(err, apierrors.ErrLoadShed) && srv.hits() >= AdmissionMinFailures {
			break
		}
	}
	before := srv.hits()
	err = Do[any](context.Background(), c, rtCall(rtPutOp, nil), nil)
	if srv.hits() != before {
		t.Fatal("the call after ten timeouts was sent")
	}
	te := rtWantTransportError(t, err, 0)
	if !te.Timeout() || !stderrors.Is(err, apierrors.ErrLoadShed) || !stderrors.Is(err, apierrors.ErrTransport) || observe.ErrorType(err) != observe.ErrorTimeout {
		t.Fatalf("err = %v: Timeout() %v, ErrorType %q; want a shed timeout matching ErrTransport and ErrLoadShed", err, te.Timeout(), observe.ErrorType(err))
	}
	rec.mu.Lock()
	last := rec.sheds[len(rec.sheds)-1]
	rec.mu.Unlock()
	if last.Reason != observe.ErrorTimeout {
		t.Fatalf("Shed reason %q, want timeout", last.Reason)
	}
}

// Beside an operation failing whole, calls of its healthy sibling go out
// and succeed, and the failing one's refusals are observed as the
// operation's own.
func TestAdmissionCallsOfAHealthySiblingGoOut(t *testing.T) {
	c, clk, rec := siblingsClient(t, http.MethodPost, http.StatusInternalServerError)
	failing := &Operation{Name: "test.Post", Method: http.MethodPost, Path: "/things/{id}", Idempotent: true}
	for i := range 200 {
		if i%20 == 19 {
			clk.Add(50 * time.Millisecond) // 4 of the fake 2 s window: both judged over it
		}
		if err := Do[any](context.Background(), c, rtCall(rtPutOp, nil), nil); err != nil {
			t.Fatalf("call %d of the healthy operation: %v", i, err)
		}
		_ = Do[any](context.Background(), c, rtCall(failing, nil), nil)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.sheds) < 100 {
		t.Fatalf("%d sheds of 200 calls of the failing operation, want most", len(rec.sheds))
	}
	for _, s := range rec.sheds {
		if s != (observe.Shed{Area: memberplatform.AreaOther, Reason: observe.ErrorInternal, Operation: failing.Name, Scope: observe.ShedOperation}) {
			t.Fatalf("shed %+v, want the failing operation's own, for its 500s", s)
		}
	}
}

// client.Execute calls are keyed by method and path shape: a value in a
// segment stands for a parameter, route words stay.
func TestAdmissionExecuteKey(t *testing.T) {
	for _, tt := range []struct{ method, path, want string }{
		{"GET", "/auth/access-management/users/user_01E4ZCR3C56J083X43JQXF3JK5", "GET /auth/access-management/users/{}"},
		{"GET", "/auth/access-management/users/user_02AAAA", "GET /auth/access-management/users/{}"},
		{"POST", "/auth/access-management/users", "POST /auth/access-management/users"},
		{"PUT", "/payment-methods/3fa85f64-5717-4562-b3fc-2c963f66afa6", "PUT /payment-methods/{}"},
		{"GET", "/v1/members/ada%40example.com/addresses", "GET /{}/members/{}/addresses"},
		{"GET", "/orgs/org-admin/roles", "GET /orgs/org-admin/roles"},
		{"GET", "/users/", "GET /users/"},
		{"GET", "/users/ada%40example.com/", "GET /users/{}/"},
		{"DELETE", "/things/QmFzZTY0SWQ=", "DELETE /things/{}"},
		{"GET", "/things/12345/parts/0", "GET /things/{}/parts/{}"},
		{"GET", "/things/" + strings.Repeat("a", 100000), "GET /things/{}"}, // a key stays short
	} {
		op := &Operation{Name: executeOperation, Method: tt.method, Path: tt.path}
		if got := operationKey(op); got != tt.want {
			t.Errorf("operationKey(%s %s) = %q, want %q", tt.method, tt.path, got, tt.want)
		}
	}
	if got := operationKey(rtPutOp); got != rtPutOp.Name {
		t.Errorf("a declared operation's key %q, want its name", got)
	}
}

// However many distinct operations fail, an area keeps at most
// AdmissionMaxOperations judges: operations idle for a window are
// forgotten, and the rest share one judge, which does not shed them on its
// own; their area, down, does.
func TestAdmissionOperationsAreBounded(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	a := testAdmissionWithoutProbes(clk, &draw)
	for i := range 1000 {
		feedOp(a, fmt.Sprintf("GET /things/%d", i), 1, 0)
	}
	if n := len(a.ops); n > AdmissionMaxOperations {
		t.Fatalf("%d judges, want at most %d", n, AdmissionMaxOperations)
	}
	clk.Add(admissionDownAfter)
	if r, refused := a.admitOp("GET /things/999", false); !refused || !r.area {
		t.Fatalf("an operation beyond the bound, failing with 936 others in an area down: refused %v %+v, want the area's refusal", refused, r)
	}
	clk.Add(AdmissionWindow + time.Millisecond)
	feedOp(a, "GET /new", AdmissionMinFailures, 0)
	if _, ok := a.ops["GET /new"]; !ok || len(a.ops) > AdmissionMaxOperations {
		t.Fatalf("after a window: the new operation has a judge %v, %d judges; want the idle ones forgotten", ok, len(a.ops))
	}
}

// A blip shorter than admissionDownAfter: once the operation's probe is
// answered, the area forgets it too, so a call after a quiet spell is not
// refused for failures the backend already recovered from.
func TestAdmissionForgetsABlipOnceItsOperationReopens(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	a := testAdmission(clk, &draw)
	feedOp(a, healthyOp, 30, 0)
	clk.Add(50 * time.Millisecond)
	a.admitOp(healthyOp, true) // the probe...
	a.answeredOp(healthyOp, accepted, 0, 0)
	clk.Add(admissionDownAfter + 50*time.Millisecond) // quiet, but the failures are within the window
	for range 20 {
		if _, refused := a.admitOp(healthyOp, true); refused {
			t.Fatal("a call after the blip healed refused")
		}
	}
}

// client.Execute calls of one route with different IDs are one operation,
// judged together: one failing whole is shed, by whatever ID it is called,
// while the other route of the area is sent and served.
func TestAdmissionJudgesExecuteByRoute(t *testing.T) {
	c, _, rec := siblingsClient(t, http.MethodDelete, http.StatusBadGateway)
	execute := func(method string, i int) error {
		op := &Operation{Name: executeOperation, Method: method, Path: fmt.Sprintf("/things/thing_%04d", i), Idempotent: true}
		return Do[any](context.Background(), c, &Call{Op: op}, nil)
	}
	for i := range 100 {
		if err := execute(http.MethodGet, i); err != nil {
			t.Fatalf("GET of thing %d: %v", i, err)
		}
		_ = execute(http.MethodDelete, i)
	}
	rec.mu.Lock()
	sheds := len(rec.sheds)
	rec.mu.Unlock()
	if sheds < 50 {
		t.Fatalf("%d of 100 DELETEs of distinct IDs shed, want most: one route failing whole", sheds)
	}
	adm := other(&c.settings).Admission
	adm.mu.Lock()
	defer adm.mu.Unlock()
	if _, ok := adm.ops["DELETE /things/{}"]; !ok || len(adm.ops) != 2 {
		t.Fatalf("judges %v, want the two routes, GET /things/{} and DELETE /things/{}", keys(adm.ops))
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A rare sibling of an operation failing whole, last answered well, keeps
// being sent even when it has been quiet for longer than the window and
// the area looks down: its calls, concurrent ones too, go out; once one
// fails, it is shed with the area.
func TestAdmissionKeepsSendingARareServedSibling(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	a := testAdmission(clk, &draw)
	feedOp(a, failingOp, 30, 0)
	a.answeredOp(healthyOp, accepted, 0, 0) // served once, while the area watched
	for range 30 {                          // 3 s: the failing operation keeps failing
		clk.Add(100 * time.Millisecond)
		feedOp(a, failingOp, 10, 0)
	}
	for i := range 20 {
		if _, refused := a.admitOp(healthyOp, i == 0); refused {
			t.Fatalf("call %d of the rare sibling, last answered well, refused", i)
		}
	}
	a.answeredOp(healthyOp, failedUnavailable, http.StatusServiceUnavailable, 0) // the backend is down after all
	a.admitOp(healthyOp, true)                                                   // its probe
	if r, refused := a.admitOp(healthyOp, true); !refused || !r.area {
		t.Fatalf("after its failure in a down area: refused %v %+v, want the area's refusal", refused, r)
	}
}

// siblingsClient is a client whose server answers status to every request
// of method failing and 200 to the others, in area other, judged by
// admission control on the fake clock clk, its sheds recorded by rec.
func siblingsClient(t *testing.T, failing string, status int) (*Client, *fakeclock.Clock, *shedRecorder) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.Method == failing {
			rtJSON(w, status, `{}`)
			return
		}
		rtJSON(w, http.StatusOK, `{}`)
	})
	clk := fakeclock.New()
	draw := 0.0
	rec := &shedRecorder{}
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		other(s).Admission = testAdmission(clk, &draw)
		s.Observer = rec
	})
	return c, clk, rec
}
