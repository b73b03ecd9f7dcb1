package benchmarks_test

import (
	"net/url"
	"strings"

	"github.com/memberplatform/memberplatform-go/internal/core"

	"github.com/memberplatform/memberplatform-go/benchmarks"
)

// route is a declared operation's method, path and error format as the
// raw contender sends it: read from its declaration (core.Operations), not
// typed again beside it.
type route struct {
	method string
	parts  []string // the path between its placeholders
	format errFormat
}

// routeOf is the route of the operation named name (a declared one).
func routeOf(name string) route {
	for _, op := range benchmarks.Operations() {
		if op.Name == name {
			return newRoute(op)
		}
	}
	panic("benchmarks: no declared operation " + name)
}

func newRoute(op *core.Operation) route {
	r := route{method: op.Method, format: problemFormat}
	if op.Errors == core.CodeMessageErrors {
		r.format = codeMessageFormat
	}
	for tmpl := op.Path; ; {
		open, end := strings.IndexByte(tmpl, '{'), strings.IndexByte(tmpl, '}')
		if open < 0 || end < open {
			r.parts = append(r.parts, tmpl)
			return r
		}
		r.parts = append(r.parts, tmpl[:open])
		tmpl = tmpl[end+1:]
	}
}

// path is the route's path with ids in its placeholders, escaped, built on
// each call as a hand-written client concatenates it.
func (r route) path(ids ...string) string {
	n := 0
	for _, p := range r.parts {
		n += len(p)
	}
	for _, id := range ids {
		n += len(id)
	}
	var b strings.Builder
	b.Grow(n + 8)
	for i, p := range r.parts {
		b.WriteString(p)
		if i < len(ids) {
			b.WriteString(url.PathEscape(ids[i]))
		}
	}
	return b.String()
}
