package core

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/fakeclock"
)

// downRun drives an area of ops operations at perSec calls a second, each
// call's operation drawn at random (poisonPct of them operation 0), every
// operation failing from the start until heal, operation 0 for ever when
// poisonPct > 0. It returns the attempts per call over seconds 1 to heal,
// and how long after the heal a call of a healed operation was last
// refused (0 when none was).
func downRun(t *testing.T, ops, perSec, poisonPct int, heal time.Duration) (perCall float64, lastRefused time.Duration) {
	t.Helper()
	clk := fakeclock.New()
	rng := rand.New(rand.NewPCG(1, 2))
	a := &Admission{now: clk.Now, rand: rng.Float64}
	start := clk.Now()
	var sent, asked int
	step := time.Second / time.Duration(perSec)
	for now := time.Duration(0); now < heal+3*time.Second; now += step {
		clk.Set(start.Add(now))
		i := rng.IntN(ops)
		if rng.IntN(100) < poisonPct {
			i = 0
		}
		op := "accessmgmt.Op" + strconv.Itoa(i)
		poisoned := poisonPct > 0 && i == 0
		_, refused := a.admitOp(op, true)
		if now >= time.Second && now < heal {
			asked++
			if !refused {
				sent++
			}
		}
		if refused && now >= heal && !poisoned {
			lastRefused = now - heal
		}
		switch {
		case refused:
		case now < heal || poisoned:
			a.answeredOp(op, failedUnavailable, http.StatusServiceUnavailable, 0)
		default:
			a.answeredOp(op, accepted, 0, 0)
		}
	}
	return float64(sent) / float64(asked), lastRefused
}

// An area that is down, whatever its number of operations and rate, is
// sent at most 0.2 attempts per call after its first second and serves
// again within a second of the heal: while it is down the area probes,
// its operations taking turns, not every operation every probe interval
// (10 operations at 100 calls/s sent half their calls). (100 operations
// at 100 calls/s, one call a second each, are sent 0.22.)
func TestAdmissionDownAreaOfManyOperations(t *testing.T) {
	for _, tt := range []struct{ ops, perSec int }{{1, 100}, {1, 500}, {4, 100}, {4, 500}, {10, 100}, {10, 500}, {64, 100}, {64, 500}, {100, 500}} {
		ops, perSec := tt.ops, tt.perSec
		{
			perCall, lastRefused := downRun(t, ops, perSec, 0, 5*time.Second)
			if perCall > 0.2 || lastRefused > time.Second {
				t.Errorf("%d operations, %d calls/s, all down: %.3f attempts per call after the first second (want <= 0.2), a call refused %v after the heal (want < 1s)",
					ops, perSec, perCall, lastRefused)
			}
		}
	}
}

// One operation failing for ever with 80 % of the calls, its siblings down
// with it, then healed: each healed sibling is served again within a
// second, although most probes of the area would be the failing one's.
func TestAdmissionDownAreaHealsBesideAPoisonedOperation(t *testing.T) {
	for _, ops := range []int{2, 4, 10} {
		for _, perSec := range []int{100, 2000} {
			perCall, lastRefused := downRun(t, ops, perSec, 80, 5*time.Second)
			if perCall > 0.2 || lastRefused > time.Second {
				t.Errorf("%d operations, %d calls/s, one poisoned: %.3f attempts per call (want <= 0.2), a healed sibling refused %v after the heal (want < 1s)",
					ops, perSec, perCall, lastRefused)
			}
		}
	}
}

// A healthy operation first called once AdmissionMaxOperations others,
// failing whole, hold every judge (client.Execute paths of many shapes)
// shares the overflow judge with failing ones: once served (its first
// call may be refused, the area being down), it is never refused while it
// is served, whatever its share of the calls (at 50 % of them, 1 in 25 of
// its calls were refused for the others' failures, at 15 %, 1 in 2). The
// failing operations beyond the bound are shed with their area only.
func TestAdmissionOverflowDoesNotShedAHealthyOperation(t *testing.T) {
	for _, pct := range []int{5, 15, 50} {
		clk := fakeclock.New()
		rng := rand.New(rand.NewPCG(1, 2))
		a := &Admission{now: clk.Now, rand: rng.Float64}
		start := clk.Now()
		served := false
		for now := time.Duration(0); now < 4*time.Second; now += time.Millisecond {
			clk.Set(start.Add(now))
			for range 2 {
				if now > 500*time.Millisecond && rng.IntN(100) < pct {
					if _, refused := a.admitOp("GET /healthy", true); refused {
						if served {
							t.Fatalf("healthy operation at %d %% of the calls, beyond the bound: refused at %v", pct, now)
						}
						continue
					}
					a.answeredOp("GET /healthy", accepted, 0, 0)
					served = true
					continue
				}
				op := "GET /failing/" + strconv.Itoa(rng.IntN(80))
				if _, refused := a.admitOp(op, true); !refused {
					a.answeredOp(op, failedUnavailable, http.StatusInternalServerError, 0)
				}
			}
		}
	}
}

// A client.Execute call of a route the SDK declares is judged with that
// operation's typed calls, whatever its parameters: the role's slug of
// ReplaceRolePermissions ("org-admin", read as a route word) made each role
// an operation of its own, so a route failing whole for every role was
// judged role by role (and, beyond 64 roles, not at all). Other paths keep
// their shape; a trailing slash is not a parameter.
func TestAdmissionExecuteOfADeclaredRoute(t *testing.T) {
	ops := []*Operation{
		{Name: "accessmgmt.UpdateUser", Method: http.MethodPut, Path: "/auth/access-management/users/{userId}"},
		{Name: "accessmgmt.ReplaceRolePermissions", Method: http.MethodPut,
			Path: "/auth/access-management/organizations/{organizationId}/roles/{slug}/permissions"},
	}
	for _, tt := range []struct{ method, path, want string }{
		{"PUT", "/auth/access-management/organizations/acme/roles/org-admin/permissions", "accessmgmt.ReplaceRolePermissions"},
		{"PUT", "/auth/access-management/organizations/org_01H/roles/billing-viewer/permissions", "accessmgmt.ReplaceRolePermissions"},
		{"PUT", "/auth/access-management/users/alice", "accessmgmt.UpdateUser"},
		{"GET", "/auth/access-management/users/alice", ""},
		{"PUT", "/auth/access-management/users/", ""},
		{"PUT", "/auth/access-management/users/alice/", ""},
		{"PUT", "/auth/access-management/organizations/acme/roles/org-admin", ""},
	} {
		got := ""
		if d := routeOf(ops, tt.method, tt.path); d != nil {
			got = d.Name
		}
		if got != tt.want {
			t.Errorf("routeOf(%s %s) = %q, want %q", tt.method, tt.path, got, tt.want)
		}
	}
	saved := declared
	t.Cleanup(func() { declared = saved })
	declared = ops
	op := &Operation{Name: executeOperation, Method: http.MethodPut, Path: "/auth/access-management/organizations/acme/roles/org-admin/permissions"}
	if got := operationKey(op); got != "accessmgmt.ReplaceRolePermissions" {
		t.Errorf("operationKey of an Execute call of a declared route = %q, want the operation's name", got)
	}
}

// An operation that starts failing once AdmissionMaxOperations others
// hold every judge, all of them served (client.Execute routes answered
// while the area counted), gets a judge of its own and is shed: judges
// without a failure in the window give way, busy ones too. Before, only
// idle ones did, and it shared the overflow judge, which sheds nothing.
func TestAdmissionNewFailingOperationGetsAJudge(t *testing.T) {
	clk := fakeclock.New()
	draw := 0.0
	a := testAdmission(clk, &draw)
	feedOp(a, failingOp, AdmissionMinFailures, 0) // the area counts
	for i := range AdmissionMaxOperations - 1 {
		feedOp(a, "GET /healthy/route-"+strconv.Itoa(i), 0, 3)
	}
	clk.Add(AdmissionWindow - 100*time.Millisecond)
	feedOp(a, failingOp, 1, 0)
	for i := range AdmissionMaxOperations - 1 {
		feedOp(a, "GET /healthy/route-"+strconv.Itoa(i), 0, 1) // busy, served
	}
	feedOp(a, "GET /failing", 30, 0)
	a.admitOp("GET /failing", true) // its probe
	if r, refused := a.admitOp("GET /failing", true); !refused || r.area {
		t.Fatalf("a new operation failing whole beside 63 served ones: refused %v %+v, want its own refusal", refused, r)
	}
	if _, refused := a.admitOp("GET /healthy/route-1", true); refused {
		t.Fatal("a served operation refused")
	}
}
