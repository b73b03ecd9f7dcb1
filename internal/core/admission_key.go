package core

import "strings"

// operationKey is the key admission control judges op's calls by: the
// operation's name, or for client.Execute, whose path is the caller's own,
// its method and path shape (executeKey).
func operationKey(op *Operation) string {
	if op.Name != executeOperation {
		return op.Name
	}
	return executeKey(op.Method, op.Path)
}

// executeKey groups client.Execute calls as a route groups requests:
// "GET /auth/access-management/users/{}" for every user. The method, then
// the path with each segment that looks like a value rather than a name
// replaced by "{}": a segment is kept only when it is made of lower-case
// letters, '-' and '_' (the contract's route words: "auth",
// "access-management", "payment-methods"), so IDs, UUIDs, numbers, e-mail
// addresses and versions ("v1") all stand for a parameter. Slugs such as
// "org-admin" stay: such an operation is judged per slug, which errs
// towards sending. The number of keys an area keeps is bounded
// (AdmissionMaxOperations), so arbitrary paths cannot grow memory.
func executeKey(method, path string) string {
	var b strings.Builder
	b.Grow(len(method) + 1 + len(path))
	b.WriteString(method)
	b.WriteByte(' ')
	for i, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if i > 0 || strings.HasPrefix(path, "/") {
			b.WriteByte('/')
		}
		if routeWord(seg) {
			b.WriteString(seg)
		} else {
			b.WriteString("{}")
		}
	}
	return b.String()
}

// routeWord reports whether seg reads as a fixed word of a route: non-empty
// lower-case letters, '-' and '_'.
func routeWord(seg string) bool {
	if seg == "" {
		return false
	}
	for i := range len(seg) {
		if c := seg[i]; (c < 'a' || c > 'z') && c != '-' && c != '_' {
			return false
		}
	}
	return true
}
