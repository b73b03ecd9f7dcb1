package otelmemberplatform

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// measureKey is the attributes of one metric point; an empty string or a
// zero leaves its attribute out.
type measureKey struct {
	operation, area, errorType      string
	sunset                          string
	method, urlTemplate, serverHost string
	shedScope                       string
	serverPort, statusCode          int
}

// measureSets holds the attribute sets the metrics are recorded with, each
// built once: building a set sorts and allocates, which every call would
// otherwise pay. The attributes are low-cardinality, so the map stays
// small.
type measureSets struct {
	mu   sync.RWMutex
	sets map[measureKey]metric.MeasurementOption
}

// get returns the measurement option for k.
func (m *measureSets) get(k measureKey) metric.MeasurementOption {
	m.mu.RLock()
	opt, ok := m.sets[k]
	m.mu.RUnlock()
	if ok {
		return opt
	}
	attrs := make([]attribute.KeyValue, 0, 8)
	str := func(key attribute.Key, v string) {
		if v != "" {
			attrs = append(attrs, key.String(v))
		}
	}
	num := func(key attribute.Key, v int) {
		if v != 0 {
			attrs = append(attrs, key.Int(v))
		}
	}
	str(AttrOperation, k.operation)
	str(AttrArea, k.area)
	str(keyErrorType, k.errorType)
	str(AttrSunset, k.sunset)
	str(AttrShedScope, k.shedScope)
	str(keyMethod, k.method)
	str(keyURLTemplate, k.urlTemplate)
	str(keyServer, k.serverHost)
	num(keyPort, k.serverPort)
	num(keyStatus, k.statusCode)
	opt = metric.WithAttributeSet(attribute.NewSet(attrs...))
	m.mu.Lock()
	if m.sets == nil {
		m.sets = map[measureKey]metric.MeasurementOption{}
	}
	m.sets[k] = opt
	m.mu.Unlock()
	return opt
}
