package core

import "strings"

// operationKey is the key admission control judges op's calls by: the
// operation's name; for client.Execute, whose path is the caller's own,
// the name of the declared operation whose method and path template it
// matches (a call through Execute of a route the SDK wraps is judged with
// the typed calls of that route, whatever its parameters: a role's slug
// such as "org-admin" reads as a route word), else its method and path
// shape (executeKey).
func operationKey(op *Operation) string {
	if d := routeOp(op); d != nil {
		return d.Name
	}
	return executeKey(op.Method, op.Path)
}

// routeOp is the declared operation op's calls are judged as: op itself,
// or for client.Execute the declared operation whose method and path
// template its path matches; nil for an Execute call of a route the SDK
// does not wrap.
func routeOp(op *Operation) *Operation {
	if op.Name != executeOperation {
		return op
	}
	return routeOf(declared, op.Method, op.Path)
}

// routeOf returns the first of ops whose method is method and whose path
// template (such as "/auth/access-management/users/{userId}") matches
// path, or nil. declared is written only while packages initialize, so it
// is read without a lock.
func routeOf(ops []*Operation, method, path string) *Operation {
	for _, d := range ops {
		if d.Method == method && matchTemplate(d.Path, path) {
			return d
		}
	}
	return nil
}

// matchTemplate reports whether path matches the path template tmpl: the
// same segments, a "{name}" one matching any non-empty segment.
func matchTemplate(tmpl, path string) bool {
	for {
		t, tRest, tMore := strings.Cut(tmpl, "/")
		p, pRest, pMore := strings.Cut(path, "/")
		if tMore != pMore {
			return false
		}
		if len(t) > 2 && t[0] == '{' && t[len(t)-1] == '}' {
			if p == "" {
				return false
			}
		} else if t != p {
			return false
		}
		if !tMore {
			return true
		}
		tmpl, path = tRest, pRest
	}
}

// executeKey groups client.Execute calls of routes the SDK does not wrap
// as a route groups requests: "GET /things/{}" for every thing. The
// method, then the path with each segment that looks like a value rather
// than a name replaced by "{}": a segment is kept only when it is made of
// lower-case letters, '-' and '_' (the contract's route words: "auth",
// "access-management", "payment-methods"), so IDs, UUIDs, numbers, e-mail
// addresses and versions ("v1") all stand for a parameter. An empty
// segment (a trailing slash) stays empty: "/things/" is a collection, not
// a thing. Slugs such as "org-admin" stay: such an operation is judged per
// slug, which errs towards sending. The number of keys an area keeps is
// bounded (AdmissionMaxOperations), so arbitrary paths cannot grow memory.
func executeKey(method, path string) string {
	var b strings.Builder
	b.Grow(len(method) + 1 + len(path))
	b.WriteString(method)
	b.WriteByte(' ')
	for i, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if i > 0 || strings.HasPrefix(path, "/") {
			b.WriteByte('/')
		}
		switch {
		case seg == "":
		case routeWord(seg):
			b.WriteString(seg)
		default:
			b.WriteString("{}")
		}
	}
	return b.String()
}

// maxRouteWord is the longest segment read as a route word: a longer one
// is a value, so that a key (kept per operation, up to
// AdmissionMaxOperations per area and maxDeprecationKeys per client) is
// never much longer than its number of segments.
const maxRouteWord = 64

// routeWord reports whether seg reads as a fixed word of a route: non-empty
// lower-case letters, '-' and '_', at most maxRouteWord of them.
func routeWord(seg string) bool {
	if seg == "" || len(seg) > maxRouteWord {
		return false
	}
	for i := range len(seg) {
		if c := seg[i]; (c < 'a' || c > 'z') && c != '-' && c != '_' {
			return false
		}
	}
	return true
}
