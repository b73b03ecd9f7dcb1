package sdktest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// HandleFunc adds an endpoint the fake does not implement, such as the
// contract's createUser (whose shape the contract does not show), so code
// that calls it through the SDK's generic request support or plain
// net/http can be tested against the same server. pattern is a net/http
// ServeMux pattern such as "POST /auth/access-management/users" or
// "DELETE /auth/access-management/users/{userId}"; h reads path wildcards
// with r.PathValue as usual.
//
// The endpoint sits behind the same gate as the built-in operations: a
// request needs a bearer token from the fake's token endpoint (or
// IssueToken) unless the server runs WithoutAuth, and SetLatency,
// SetRateLimit and, under /auth/access-management/, SetProviderConfigured
// apply. Requests are recorded with Operation set to pattern, exactly as
// given, so RequestCount(pattern) counts them and Fault{Operation: pattern}
// scripts them (a Fault with no Operation matches them too). h gets the
// request body in full, at most 1 MiB. Errors the fake answers itself (401,
// 429, 503, scripted faults) use the error format of the operations the
// SDK declares in the endpoint's area: code/message under /customer,
// problem documents with a free-form serviceCode under /payment-methods and
// /auth/token, and problem documents with an 8-digit serviceCode elsewhere.
// WriteProblem and WriteCodeMessage write those formats from h.
//
// h runs on the server's goroutines and may call the Server's methods,
// such as AddUser to store the user a createUser call made.
//
// A pattern that is invalid, names a host, or conflicts with a built-in
// endpoint or an earlier HandleFunc pattern is refused: the pattern is
// equivalent to or overlaps another ambiguously (which net/http itself
// refuses), or it is more specific than a built-in endpoint and so would
// take requests from it ("PUT /auth/access-management/users/me"). For a
// server from NewServer the refusal fails the test through its
// testing.TB, at the HandleFunc call, so call HandleFunc from the test's
// goroutine; for a server from Start it panics, as ServeMux does.
// Patterns may be added while the server is serving.
func (s *Server) HandleFunc(pattern string, h http.HandlerFunc) {
	if err := s.addRoute(pattern, h); err != nil {
		msg := fmt.Sprintf("sdktest: HandleFunc(%q): %v", pattern, err)
		if s.tb != nil {
			s.tb.Helper()
			s.tb.Fatal(msg)
			return
		}
		panic(msg)
	}
}

func (s *Server) addRoute(pattern string, h http.HandlerFunc) error {
	if h == nil {
		return errors.New("nil handler")
	}
	s.routesMu.Lock()
	defer s.routesMu.Unlock()
	if err := s.checkPattern(pattern); err != nil {
		return err
	}
	s.mux.Handle(pattern, s.serve(pattern, func(w http.ResponseWriter, r *http.Request, body []byte) {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		h(w, r)
	}))
	s.customPatterns = append(s.customPatterns, pattern)
	return nil
}

// checkPattern reports why pattern cannot join the fake's routes, or nil.
// It registers the routes on a scratch mux first, because a ServeMux
// cannot take a pattern back once it has accepted it.
func (s *Server) checkPattern(pattern string) (err error) {
	noop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	builtins, all := http.NewServeMux(), http.NewServeMux()
	for _, op := range core.Operations() {
		builtins.Handle(routeOf(op), noop)
		all.Handle(routeOf(op), noop)
	}
	all.Handle(unknownRoutePattern, noop)
	for _, p := range s.customPatterns {
		all.Handle(p, noop)
	}
	defer func() {
		// ServeMux reports an invalid or conflicting pattern by panicking.
		if r := recover(); r != nil {
			err = errors.New(s.explainMuxPanic(fmt.Sprint(r)))
		}
	}()
	all.Handle(pattern, noop)

	method, path := splitPattern(pattern)
	if !strings.HasPrefix(path, "/") {
		return errors.New("patterns must not name a host: the fake serves every host alike")
	}
	// A request the new pattern matches, sent with each method a built-in
	// endpoint could serve it with: if a built-in matches it but the new
	// pattern wins, the new pattern takes requests from that endpoint.
	methods := []string{method}
	if method == "" {
		for _, op := range core.Operations() {
			methods = append(methods, op.Method)
		}
	}
	for _, m := range methods {
		req, _ := http.NewRequest(m, "http://sdktest.invalid"+samplePath(path), nil)
		if req == nil {
			continue
		}
		if _, builtin := builtins.Handler(req); builtin != "" {
			if _, winner := all.Handler(req); winner == pattern {
				return fmt.Errorf("pattern %q conflicts with pattern %q (the built-in endpoint of %s): it is more specific, so it would take %s %s from the built-in endpoint; script that endpoint's failures with FailNext instead",
					pattern, builtin, builtinOp(builtin), m, req.URL.Path)
			}
		}
	}
	return nil
}

// registeredAt matches the "(registered at file:line)" ServeMux adds after
// each pattern of a conflict; for this check's scratch mux those name
// sdktest's own lines, not the caller's.
var registeredAt = regexp.MustCompile(`pattern ("(?:[^"\\]|\\.)*") \(registered at [^)]*\)`)

// explainMuxPanic rewrites a ServeMux conflict message to say what the
// other pattern is to the fake instead of where sdktest registered it.
// The first pattern named is the new one, the second the one it conflicts
// with.
func (s *Server) explainMuxPanic(msg string) string {
	seen := 0
	msg = registeredAt.ReplaceAllStringFunc(msg, func(m string) string {
		seen++
		quoted := registeredAt.FindStringSubmatch(m)[1]
		p, err := strconv.Unquote(quoted)
		switch {
		case seen == 1 || err != nil:
			return "pattern " + quoted
		case p == unknownRoutePattern:
			return "pattern " + quoted + " (the fake's answer to unknown routes)"
		case slices.Contains(s.customPatterns, p):
			return "pattern " + quoted + " (added earlier with HandleFunc)"
		}
		if op := builtinOp(p); op != "" {
			return "pattern " + quoted + " (the built-in endpoint of " + op + ")"
		}
		return "pattern " + quoted
	})
	return strings.NewReplacer(":\n", ": ", "\n", ": ").Replace(msg)
}

// splitPattern splits a ServeMux pattern into its method (or "") and the
// rest: a path, or a host and a path.
func splitPattern(pattern string) (method, rest string) {
	pattern = strings.TrimSpace(pattern)
	if i := strings.IndexAny(pattern, " \t"); i >= 0 {
		return pattern[:i], strings.TrimLeft(pattern[i:], " \t")
	}
	return "", pattern
}

// samplePath returns a path the pattern path matches: each wildcard
// segment becomes a placeholder, {$} nothing.
func samplePath(path string) string {
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		switch {
		case seg == "{$}":
			segs[i] = ""
		case strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}"):
			segs[i] = "sdktest-wildcard"
		}
	}
	return strings.Join(segs, "/")
}

// builtinOp names the declared operation served at pattern, or "".
func builtinOp(pattern string) string {
	for _, op := range core.Operations() {
		if routeOf(op) == pattern {
			return op.Name
		}
	}
	return ""
}
