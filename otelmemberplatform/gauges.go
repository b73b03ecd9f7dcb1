package otelmemberplatform

import (
	"context"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"weak"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/observe"
)

// A gauge keeps one point per attribute set, so clients that share a
// MeterProvider (the global one, say) must be read together: each
// registering its own callback for the same {memberplatform.area} points
// would leave only one client's values. The clients of one meter share
// one callback that reports, per area, the smallest retry budget and the
// largest pacer rate, shed ratio, count of resources throttled on their
// own and unfollowed share among them: the budget and shed ratio of the
// client in the most trouble, a rate above 0 while any client's pacer is
// engaged, which is what the alerts test, and a share above 0 while any
// client's pacer tolerates throttles that do not follow its rate.

// meterStates are the states of the clients reporting through one meter.
type meterStates struct {
	mu     sync.Mutex
	states []weak.Pointer[observe.State]
	reg    metric.Registration
}

// statesByMeter holds the meterStates of each meter that has clients, by
// meter; an entry goes with the last of its clients.
var (
	statesMu      sync.Mutex
	statesByMeter = map[metric.Meter]*meterStates{}
)

// observeGauges reports state's gauges through in's meter, beside the
// other clients of that meter, until the client is collected.
func (in *instrumentation) observeGauges(state *observe.State) {
	if !reflect.ValueOf(in.meter).Comparable() { // a meter that is no map key (its value, not its type: an interface field may hold a slice): the client reads alone
		ms := &meterStates{states: []weak.Pointer[observe.State]{weak.Make(state)}}
		reg, err := in.registerGauges(ms)
		if err != nil {
			otel.Handle(err)
			return
		}
		runtime.AddCleanup(state, func(reg metric.Registration) { _ = reg.Unregister() }, reg)
		return
	}
	statesMu.Lock()
	defer statesMu.Unlock()
	ms := statesByMeter[in.meter]
	if ms == nil {
		ms = &meterStates{}
		reg, err := in.registerGauges(ms)
		if err != nil {
			otel.Handle(err)
			return
		}
		ms.reg = reg
		statesByMeter[in.meter] = ms
	}
	ms.mu.Lock()
	ms.states = append(ms.states, weak.Make(state))
	ms.mu.Unlock()
	meter := in.meter
	runtime.AddCleanup(state, func(meter metric.Meter) { forget(meter, ms) }, meter)
}

// forget drops the collected clients of ms, and ms itself, with its
// callback, once none is left.
func forget(meter metric.Meter, ms *meterStates) {
	statesMu.Lock()
	defer statesMu.Unlock()
	ms.mu.Lock()
	ms.states = slices.DeleteFunc(ms.states, func(p weak.Pointer[observe.State]) bool { return p.Value() == nil })
	empty := len(ms.states) == 0
	ms.mu.Unlock()
	if empty && statesByMeter[meter] == ms {
		delete(statesByMeter, meter)
		_ = ms.reg.Unregister()
	}
}

// registerGauges registers the callback that reads the clients of ms.
func (in *instrumentation) registerGauges(ms *meterStates) (metric.Registration, error) {
	budget, rate, shed, hot, unfollowed := in.budgetAvailable, in.pacerRate, in.shedRatio, in.hotResources, in.unfollowed
	measures := &in.measures
	return in.meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		ms.mu.Lock()
		states := make([]*observe.State, 0, len(ms.states))
		for _, p := range ms.states {
			if s := p.Value(); s != nil {
				states = append(states, s)
			}
		}
		ms.mu.Unlock()
		for _, area := range areasOf(states) {
			attrs := measures.get(measureKey{area: string(area)})
			tokens, hasBudget := math.MaxInt, false
			perSecond, hasRate := 0.0, false
			ratio, hasShed := 0.0, false
			resources, hasHot := 0, false
			share, hasUnfollowed := 0.0, false
			for _, s := range states {
				if s.UnfollowedShareOf != nil { // (nil in a State built by hand)
					if u, ok := s.UnfollowedShareOf(area); ok {
						share, hasUnfollowed = max(share, u), true
					}
				}
				if t, ok := s.RetryBudgetOf(area); ok {
					tokens, hasBudget = min(tokens, t), true
				}
				if r, ok := s.PacerRateOf(area); ok {
					perSecond, hasRate = max(perSecond, r), true
				}
				if s.ThrottledResourcesOf != nil { // a State built by hand may lack it
					if n, ok := s.ThrottledResourcesOf(area); ok {
						resources, hasHot = max(resources, n), true
					}
				}
				if s.ShedRatioOf == nil { // a State built without it, by hand
					continue
				}
				if r, ok := s.ShedRatioOf(area); ok {
					ratio, hasShed = max(ratio, r), true
				}
			}
			if hasBudget {
				o.ObserveInt64(budget, int64(tokens), attrs)
			}
			if hasRate {
				o.ObserveFloat64(rate, perSecond, attrs)
			}
			if hasShed {
				o.ObserveFloat64(shed, ratio, attrs)
			}
			if hasHot {
				o.ObserveInt64(hot, int64(resources), attrs)
			}
			if hasUnfollowed {
				o.ObserveFloat64(unfollowed, share, attrs)
			}
		}
		return nil
	}, budget, rate, shed, hot, unfollowed)
}

// areasOf lists the areas the states know, each once, in their order.
func areasOf(states []*observe.State) []memberplatform.Area {
	var areas []memberplatform.Area
	for _, s := range states {
		for _, a := range s.Areas {
			if !slices.Contains(areas, a) {
				areas = append(areas, a)
			}
		}
	}
	return areas
}
