package core

import (
	"context"
	stderrors "errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	memberplatform "github.com/memberplatform/memberplatform-go"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/fakeclock"
	"github.com/memberplatform/memberplatform-go/observe"
)

// testAdmission is an Admission on clk whose draws return *draw.
func testAdmission(clk *fakeclock.Clock, draw *float64) *Admission {
	return &Admission{now: clk.Now, rand: func() float64 { return *draw }}
}

// testAdmissionWithoutProbes is testAdmission whose next probe is an hour
// away, for tests of its refusals alone.
func testAdmissionWithoutProbes(clk *fakeclock.Clock, draw *float64) *Admission {
	a := testAdmission(clk, draw)
	a.firstProbe = clk.Now().Add(time.Hour).UnixNano()
	return a
}

// admit, answered and answeredWith are admitOp and answeredOp of one
// operation, keyed "": an area of one operation.
func (a *Admission) admit(first bool) (admissionRefusal, bool) { return a.admitOp("", first) }

func (a *Admission) answered(r failureReason) { a.answeredOp("", r, 0, 0) }

func (a *Admission) answeredWith(r failureReason, status int, retryAfter time.Duration) {
	a.answeredOp("", r, status, retryAfter)
}

// probeAt sets when the next probe of the operation keyed op goes out.
func (a *Admission) probeAt(op string, ns int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.judgeOf(op, ns, true).nextProbe = ns
}

// feed counts failures failed answers and accepts accepted ones,
// interleaved, for the operation keyed "".
func feed(a *Admission, failures, accepts int) { feedOp(a, "", failures, accepts) }

// feedOp is feed for the operation keyed op.
func feedOp(a *Admission, op string, failures, accepts int) {
	for i := 0; i < failures || i < accepts; i++ {
		if i < failures {
			a.answeredOp(op, failedUnavailable, 0, 0)
		}
		if i < accepts {
			a.answeredOp(op, accepted, 0, 0)
		}
	}
}

// The refusal probability is the SRE formula over requests and accepts:
// refused while the draw is below it, admitted from it up.
func TestAdmissionRefusalProbability(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	a := testAdmission(clk, &draw)
	// The first failure starts the counting (accepts before it are not
	// seen), and an accept once p > 0 reopens the area: so 1 failure, 2
	// accepts, 17 failures.
	feed(a, 1, 2)
	feed(a, 17, 0)
	want := float64(20-AdmissionK*2) / 21
	a.mu.Lock()
	got := a.ops[""].window(clk.Now().UnixNano()).refusalProbability()
	a.mu.Unlock()
	if got != want {
		t.Fatalf("refusal probability %v, want (20 − 5·2)/21 = %v", got, want)
	}
	if _, refused := a.admit(true); refused {
		t.Fatal("the first attempt refused: it goes out as the probe")
	}
	draw = want + 0.001
	if _, refused := a.admit(true); refused {
		t.Fatal("draw over p: refused")
	}
	draw = want - 0.001
	r, refused := a.admit(true)
	if !refused || r.reason != failedUnavailable || r.wait != AdmissionProbeInterval {
		t.Fatalf("draw under p: refused %v (%+v), want a refusal for 5xx with the probe 100 ms away", refused, r)
	}
	// The refusal counts as a request that was not accepted: p rises.
	a.mu.Lock()
	after := a.ops[""].window(clk.Now().UnixNano()).refusalProbability()
	a.mu.Unlock()
	if want := float64(21-AdmissionK*2) / 22; after != want {
		t.Fatalf("after one refusal p = %v, want %v", after, want)
	}
}

// Nothing is refused while at least half the answers are accepts (a 1-in-10
// failure), while the window holds fewer than AdmissionMinFailures
// failures, or in a quiet area.
func TestAdmissionRefusesNothingForAPartialFailure(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0 // every draw would refuse if p > 0
	a := testAdmission(clk, &draw)
	if _, refused := a.admit(true); refused {
		t.Fatal("a quiet area refused")
	}
	for range 30 { // 3 s: every 10th answer a failure, 100 answers per 100 ms
		for i := range 100 {
			if i%10 == 9 {
				a.answered(failedUnavailable)
			} else {
				a.answered(accepted)
			}
			if _, refused := a.admit(true); refused {
				t.Fatalf("1 failure in 10 refused an attempt at %v", clk.Now())
			}
		}
		clk.Add(100 * time.Millisecond)
	}
	if r := a.ShedRatio(); r != 0 {
		t.Fatalf("ShedRatio %v, want 0", r)
	}

	b := testAdmission(clk, &draw)
	feed(b, AdmissionMinFailures-1, 0)
	if _, refused := b.admit(true); refused {
		t.Fatalf("%d failures refused an attempt, want none under %d", AdmissionMinFailures-1, AdmissionMinFailures)
	}
}

// Failures older than the window refuse nothing: the area sheds only while
// its recent answers fail.
func TestAdmissionForgetsFailuresOlderThanTheWindow(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	a := testAdmission(clk, &draw)
	feed(a, 50, 0)
	a.admit(true) // the probe
	if _, refused := a.admit(true); !refused {
		t.Fatal("50 failures in a row: not refused")
	}
	if r := a.ShedRatio(); r <= 0 || r >= 1 {
		t.Fatalf("ShedRatio %v while refusing, want in (0, 1)", r)
	}
	clk.Add(AdmissionWindow - 150*time.Millisecond)
	a.admit(true) // a probe is due
	if _, refused := a.admit(true); !refused {
		t.Fatal("failures 1.85 s old: not refused, want the window to hold them")
	}
	clk.Add(200 * time.Millisecond)
	wantAllAdmitted(t, a, "failures 2.05 s old")
}

// wantAllAdmitted fails t unless a admits 100 first attempts in a row and
// reports a shed ratio of 0.
func wantAllAdmitted(t *testing.T, a *Admission, when string) {
	t.Helper()
	for range 100 {
		if _, refused := a.admit(true); refused {
			t.Fatalf("%s: an attempt refused, want every one admitted", when)
		}
	}
	if r := a.ShedRatio(); r != 0 {
		t.Fatalf("%s: ShedRatio %v, want 0", when, r)
	}
}

// While refusing, one attempt per probe interval goes out; an accepted
// answer to it reopens the area at once.
func TestAdmissionProbesAndReopens(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	a := testAdmission(clk, &draw)
	feed(a, 100, 0)
	sent := 0
	for range 50 { // 500 ms, 100 asks per 10 ms, every probe failing
		for range 100 {
			if _, refused := a.admit(true); !refused {
				sent++
				a.answered(failedTransport)
			}
		}
		clk.Add(10 * time.Millisecond)
	}
	if sent != 5 {
		t.Fatalf("%d attempts sent in 500 ms of refusals, want 5 probes (one per 100 ms)", sent)
	}
	if _, refused := a.admit(true); refused {
		t.Fatal("the sixth probe, due, was refused")
	}
	a.answered(failedTransport)
	r, refused := a.admit(true)
	if !refused || r.reason != failedTransport || r.wait <= 0 || r.wait > AdmissionProbeInterval {
		t.Fatalf("refused %v %+v, want a refusal for no answer (the last failure's) with the next probe within 100 ms", refused, r)
	}
	clk.Add(r.wait)
	if r, refused := a.admit(false); !refused || r.wait <= 0 {
		t.Fatalf("a retry when a probe is due: refused %v %+v; want a refusal: retries are no probes", refused, r)
	}
	if _, refused := a.admit(true); refused {
		t.Fatal("the probe due was refused")
	}
	a.answered(accepted) // the backend healed
	wantAllAdmitted(t, a, "after an accepted probe")
}

// 4xx answers, 429s, the rate-limited and provider-not-configured problems
// and 501 are answers of a working backend; 5xx and no answer are failures;
// a call that gave up says nothing.
func TestAdmissionAnswerHealth(t *testing.T) {
	problem := func(status int, title string) *apierrors.Error {
		return apierrors.Decode(status, http.Header{"Content-Type": {"application/problem+json"}}, []byte(`{"title":"`+title+`"}`))
	}
	live := &callState{ctx: context.Background()}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name  string
		state *callState
		api   *apierrors.Error
		err   error
		want  failureReason
	}{
		{"2xx", live, nil, nil, accepted},
		{"400", live, rtResp(400), nil, accepted},
		{"404", live, rtResp(404), nil, accepted},
		{"408", live, rtResp(408), nil, accepted},
		{"429", live, rtResp(429), nil, accepted},
		{"429 with Retry-After", live, rtResp(429, "Retry-After", "1"), nil, accepted},
		{"rate-limited problem on a 503", live, problem(503, "Rate limit exceeded"), nil, accepted},
		{"provider not configured", live, problem(503, "Provider not configured"), nil, accepted},
		{"501", live, rtResp(501), nil, accepted},
		{"500", live, rtResp(500), nil, failedUnavailable},
		{"502", live, rtResp(502), nil, failedUnavailable},
		{"503", live, rtResp(503), nil, failedUnavailable},
		{"504", live, rtResp(504), nil, failedUnavailable},
		{"connection refused", live, nil, stderrors.New("connection refused"), failedTransport},
		{"cancelled by the caller", &callState{ctx: cancelled}, nil, context.Canceled, uncounted},
	}
	for _, tt := range tests {
		if got := tt.state.answerHealth(tt.api, tt.err); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// shedRecorder counts refusals and keeps the calls' errors.
type shedRecorder struct {
	observe.Nop
	mu    sync.Mutex
	sheds []observe.Shed
	ends  []error
	state *observe.State
}

func (r *shedRecorder) Shed(_ context.Context, s observe.Shed) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sheds = append(r.sheds, s)
}

func (r *shedRecorder) EndCall(_ context.Context, _ observe.Call, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ends = append(r.ends, err)
}

func (r *shedRecorder) ObserveState(s *observe.State) { r.state = s }

// An area answering 503 to everything: once 10 attempts failed, calls fail
// at once without reaching it, with a 503-shaped *Error that matches
// ErrServiceUnavailable and ErrLoadShed, carries the call's metadata and
// the next probe's wait, and reaches the observer.
func TestAdmissionRefusesCallsOfAFailingArea(t *testing.T) {
	var hits atomic.Int64
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		hits.Add(1)
		rtJSON(w, http.StatusServiceUnavailable, `{}`)
	})
	clk := fakeclock.New()
	draw := 0.0
	rec := &shedRecorder{}
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		other(s).Admission = testAdmissionWithoutProbes(clk, &draw)
		s.Observer = rec
	})
	if ratio, ok := rec.state.ShedRatioOf(memberplatform.AreaOther); !ok || ratio != 0 {
		t.Fatalf("ShedRatioOf before any failure = %v, %v; want 0, true", ratio, ok)
	}
	for calls := 0; calls < 10 && hits.Load() < AdmissionMinFailures; calls++ {
		if err := Do[any](context.Background(), c, rtCall(rtPutOp, nil), nil); !stderrors.Is(err, apierrors.ErrServiceUnavailable) {
			t.Fatalf("call %d: %v, want the 503", calls, err)
		}
	}
	before := hits.Load()
	err := Do[any](context.Background(), c, rtCall(rtPutOp, nil), nil)
	if hits.Load() != before {
		t.Fatal("the call after the area failed whole was sent")
	}
	ae := rtWantAPIError(t, err, http.StatusServiceUnavailable, 0)
	wait, ok := apierrors.RetryAfterOf(err)
	if !stderrors.Is(err, apierrors.ErrLoadShed) || !stderrors.Is(err, apierrors.ErrServiceUnavailable) || stderrors.Is(err, apierrors.ErrTransport) ||
		ae.Operation != rtPutOp.Name || ae.Method != rtPutOp.Method || ae.Path == "" || !ok || wait <= 0 {
		t.Fatalf("err = %v (%+v, RetryAfterOf %v %v); want a local 503 matching ErrLoadShed and ErrServiceUnavailable with the call's metadata", err, ae, wait, ok)
	}
	if !strings.Contains(err.Error(), "503 Service Unavailable: refused locally by admission control") {
		t.Errorf("err = %q, want it to say the call was refused locally", err)
	}
	if got := observe.ErrorType(err); got != observe.ErrorServiceUnavailable {
		t.Fatalf("ErrorType = %q, want %q", got, observe.ErrorServiceUnavailable)
	}
	rec.mu.Lock()
	sheds, last := rec.sheds, rec.ends[len(rec.ends)-1]
	rec.mu.Unlock()
	if len(sheds) == 0 || sheds[len(sheds)-1] != (observe.Shed{Area: memberplatform.AreaOther, Reason: observe.ErrorServiceUnavailable, Operation: rtPutOp.Name, Scope: observe.ShedOperation}) || last != err {
		t.Fatalf("observer saw sheds %v and the call end with %v; want a shed of area other for service_unavailable and the call's error", sheds, last)
	}
	if ratio, ok := rec.state.ShedRatioOf(memberplatform.AreaOther); !ok || ratio <= 0 {
		t.Fatalf("ShedRatioOf while refusing = %v, %v; want > 0", ratio, ok)
	}
	if ratio, _ := rec.state.ShedRatioOf(memberplatform.AreaCustomer); ratio != 0 {
		t.Fatalf("customer's ShedRatioOf = %v, want 0: another area's failures", ratio)
	}
}

// An area failing with 500s sheds calls that match ErrInternal as its
// failures did (not a 503's ErrServiceUnavailable), observed as internal;
// one failing with 503s that ask for Retry-After: 10 sheds calls whose
// RetryAfterOf is those 10 s, not the next probe's 100 ms.
func TestAdmissionRefusalMatchesTheAreasFailures(t *testing.T) {
	status := atomic.Int64{}
	status.Store(http.StatusInternalServerError)
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if status.Load() == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "10")
		}
		rtJSON(w, int(status.Load()), `{}`)
	})
	clk := fakeclock.New()
	draw := 0.0
	rec := &shedRecorder{}
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		other(s).Admission = testAdmissionWithoutProbes(clk, &draw)
		s.Retry.MaxRetries = 0
		s.Observer = rec
	})
	shed := func() error {
		t.Helper()
		for range 2 * AdmissionMinFailures {
			err := Do[any](context.Background(), c, rtCall(rtPutOp, nil), nil)
			if stderrors.Is(err, apierrors.ErrLoadShed) {
				return err
			}
		}
		t.Fatal("no call was refused")
		return nil
	}
	err := shed()
	rtWantAPIError(t, err, http.StatusInternalServerError, 0)
	if !stderrors.Is(err, apierrors.ErrInternal) || stderrors.Is(err, apierrors.ErrServiceUnavailable) || observe.ErrorType(err) != observe.ErrorInternal {
		t.Fatalf("err = %v (ErrorType %q): want a refusal matching ErrInternal, as the area's 500s did", err, observe.ErrorType(err))
	}
	rec.mu.Lock()
	last := rec.sheds[len(rec.sheds)-1]
	rec.mu.Unlock()
	if last.Reason != observe.ErrorInternal {
		t.Fatalf("Shed reason %q, want internal", last.Reason)
	}

	status.Store(http.StatusServiceUnavailable)
	adm := other(&c.settings).Admission
	adm.probeAt(rtPutOp.Name, 0) // the next call goes out and meets a 503
	for range 3 {
		_ = Do[any](context.Background(), c, rtCall(rtPutOp, nil), nil)
	}
	adm.probeAt(rtPutOp.Name, clk.Now().Add(50*time.Millisecond).UnixNano()) // the clock stands: no probe
	err = shed()
	if wait, ok := apierrors.RetryAfterOf(err); !stderrors.Is(err, apierrors.ErrServiceUnavailable) || !ok || wait != 10*time.Second {
		t.Fatalf("err = %v, RetryAfterOf %v %v: want a 503 refusal waiting the 10 s the area's 503s asked for", err, wait, ok)
	}
}

// A retry refused ends the call with its attempt's own error, marked, and
// costs neither a wait nor the budget.
func TestAdmissionRefusedRetryEndsTheCall(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { rtJSON(w, http.StatusBadGateway, `{}`) })
	clk := fakeclock.New()
	draw := 0.0
	c := rtNewClient(t, srv.URL, func(s *Settings) { other(s).Admission = testAdmission(clk, &draw) })
	adm := other(&c.settings).Admission
	feedOp(adm, rtPutOp.Name, 20, 0)
	adm.probeAt(rtPutOp.Name, 0) // the call's first attempt goes out as the probe
	tokens := other(&c.settings).Budget.Tokens()
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	ae := rtWantAPIError(t, err, http.StatusBadGateway, 1)
	if !stderrors.Is(err, apierrors.ErrLoadShed) || ae.Header == nil || !strings.Contains(err.Error(), "not retried: admission control") {
		t.Fatalf("err = %v; want the 502 answer, marked ErrLoadShed, saying its retry was refused", err)
	}
	if got := other(&c.settings).Budget.Tokens(); got != tokens {
		t.Fatalf("budget %d after a refused retry, want %d", got, tokens)
	}
}

// An area whose attempts get no answer: refusals are *TransportErrors
// matching ErrTransport and ErrLoadShed, ErrorType "transport".
func TestAdmissionRefusalsOfAnAreaWithoutAnswers(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	c := rtNewClient(t, "http://"+rtClosedAddr(t), func(s *Settings) {
		other(s).Admission = testAdmissionWithoutProbes(clk, &draw)
	})
	var err error
	for range 5 {
		err = c.do(context.Background(), rtCall(rtPutOp, nil))
	}
	te := rtWantTransportError(t, err, 0)
	if !stderrors.Is(err, apierrors.ErrLoadShed) || !stderrors.Is(err, apierrors.ErrTransport) || stderrors.Is(err, apierrors.ErrServiceUnavailable) ||
		observe.ErrorType(err) != observe.ErrorTransport || te.Operation != rtPutOp.Name {
		t.Fatalf("err = %v (ErrorType %q); want a local refusal matching ErrTransport and ErrLoadShed", err, observe.ErrorType(err))
	}
}

// 429s, however many, never refuse an attempt: the pacer owns them.
func TestAdmissionIgnoresThrottles(t *testing.T) {
	var hits atomic.Int64
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		hits.Add(1)
		rtJSON(w, http.StatusTooManyRequests, `{}`)
	})
	c := rtNewClient(t, srv.URL, func(s *Settings) { other(s).Pacer, other(s).Budget = nil, nil; s.Retry.MaxRetries = 0 })
	for range 40 {
		if err := c.do(context.Background(), rtCall(rtPutOp, nil)); stderrors.Is(err, apierrors.ErrLoadShed) {
			t.Fatalf("a 429 storm refused a call: %v", err)
		}
	}
	if hits.Load() != 40 {
		t.Fatalf("%d of 40 calls sent", hits.Load())
	}
}

// Without admission control, State.ShedRatioOf says so.
func TestAdmissionOffHasNoShedRatio(t *testing.T) {
	rec := &shedRecorder{}
	rtNewClient(t, "http://127.0.0.1:1", func(s *Settings) {
		for i := range s.Scopes {
			s.Scopes[i].Admission = nil
		}
		s.Observer = rec
	})
	if _, ok := rec.state.ShedRatioOf(memberplatform.AreaAccessMgmt); ok {
		t.Fatal("ShedRatioOf ok without admission control")
	}
}

// An area that still serves 30 % of its attempts is failing, not down: it
// loses no attempt, however long it goes on (the refusals of SRE's K = 2,
// counted as requests, used to drift towards refusing nearly all of it).
func TestAdmissionRefusesNothingWhileAFifthIsServed(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0 // every draw would refuse if p > 0
	a := testAdmission(clk, &draw)
	for range 50 { // 5 s: 7 failures in 10, 100 answers per 100 ms
		for i := range 100 {
			if _, refused := a.admit(i%10 == 0); refused {
				t.Fatalf("7 failures in 10 refused an attempt at %v", clk.Now())
			}
			if k := i % 10; k == 2 || k == 5 || k == 8 { // F F A F F A F F A F
				a.answered(accepted)
			} else {
				a.answered(failedUnavailable)
			}
		}
		clk.Add(100 * time.Millisecond)
	}
}

// A refusal reports the last 5xx's status, so a refused call matches what
// the area's failures matched (a 500 ErrInternal, not a 503), and its
// Retry-After when later than the next probe.
func TestAdmissionRefusalKeepsTheLastFailure(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	a := testAdmission(clk, &draw)
	for range 20 {
		a.answeredWith(failedUnavailable, http.StatusInternalServerError, 0)
	}
	a.admit(true) // the probe
	r, refused := a.admit(true)
	if !refused || r.status != http.StatusInternalServerError || r.wait > AdmissionProbeInterval {
		t.Fatalf("refusal %+v (%v), want one for a 500 within the probe interval", r, refused)
	}
	a.answeredWith(failedUnavailable, http.StatusServiceUnavailable, 10*time.Second)
	if r, refused = a.admit(true); !refused || r.status != http.StatusServiceUnavailable || r.wait != 10*time.Second {
		t.Fatalf("refusal %+v (%v), want one for a 503 asking to wait 10 s", r, refused)
	}
}

// A Retry-After belongs to its 5xx: once the area reopens, or a later
// failure had no answer, refusals wait for the next probe only.
func TestAdmissionRetryAfterDoesNotOutliveItsFailure(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	a := testAdmission(clk, &draw)
	for range 20 {
		a.answeredWith(failedUnavailable, http.StatusServiceUnavailable, time.Minute)
	}
	a.admit(true) // the probe
	if r, refused := a.admit(true); !refused || r.wait != time.Minute {
		t.Fatalf("refusal %+v (%v), want one waiting the 503s' minute", r, refused)
	}
	clk.Add(AdmissionProbeInterval)
	a.admit(true)        // a probe...
	a.answered(accepted) // ...answered: the area reopens
	clk.Add(time.Second)
	for range 20 {
		a.answered(failedTransport)
	}
	a.admit(true) // the probe
	r, refused := a.admit(true)
	if !refused || r.reason != failedTransport || r.status != 0 || r.wait > AdmissionProbeInterval {
		t.Fatalf("refusal %+v (%v), want one for no answer within the probe interval, not the old 503's minute", r, refused)
	}
}
