package sdktest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	memberplatform "github.com/memberplatform/memberplatform-go"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/validate"
)

// ProblemTypeBase prefixes the type URI of every problem the server
// answers, such as ProblemTypeBase + "not-found".
const ProblemTypeBase = "https://sdktest.memberplatform.invalid/problems/"

// The contract's patterns are checked with the SDK's own checks
// (internal/validate); the fake adds only its choice for expDate, whose
// request format the contract leaves open.
var (
	expDateMonthYear      = regexp.MustCompile(`^(0[1-9]|1[0-2])/([0-9]{4})$`) // MM/YYYY, as the resource reports
	expDateMonthShortYear = regexp.MustCompile(`^(0[1-9]|1[0-2])/([0-9]{2})$`) // MM/YY, as printed on cards
	expDateISOYearMonth   = regexp.MustCompile(`^([0-9]{4})-(0[1-9]|1[0-2])$`) // YYYY-MM, ISO 8601
)

// expDateFormats names the accepted request formats in field errors.
const expDateFormats = "must be MM/YYYY, MM/YY or YYYY-MM, such as 04/2031"

// normalizeExpDate turns an expDate in one of the accepted request formats
// into MM/YYYY, the format the resource reports; ok is false for any other
// string. Two-digit years are 20YY: card expiry dates lie in the future.
func normalizeExpDate(s string) (mmyyyy string, ok bool) {
	if expDateMonthYear.MatchString(s) {
		return s, true
	}
	if m := expDateMonthShortYear.FindStringSubmatch(s); m != nil {
		return m[1] + "/20" + m[2], true
	}
	if m := expDateISOYearMonth.FindStringSubmatch(s); m != nil {
		return m[2] + "/" + m[1], true
	}
	return "", false
}

// kind describes one error response: its problem type suffix, status,
// title and the codes used by each error format.
type kind struct {
	slug               string
	status             int
	title              string
	numericServiceCode string // serviceCode of operations 1 and 2
	textServiceCode    string // serviceCode of operation 3 and the token endpoint
	codeMessageCode    string // code of operation 4
}

var kinds = []kind{
	{"bad-request", 400, "Bad Request", "40000001", "BAD_REQUEST", "VALIDATION_ERROR"},
	{"unauthorized", 401, "Unauthorized", "40100001", "UNAUTHORIZED", "UNAUTHENTICATED"},
	{"forbidden", 403, "Forbidden", "40300001", "FORBIDDEN", "FORBIDDEN"},
	{"not-found", 404, "Not Found", "40400001", "NOT_FOUND", "MEMBER_NOT_FOUND"},
	{"conflict", 409, "Conflict", "40900001", "CONFLICT", "CONFLICT"},
	{"unprocessable-entity", 422, "Unprocessable Entity", "42200001", "UNPROCESSABLE_ENTITY", "VALIDATION_ERROR"},
	{"rate-limited", 429, "Too Many Requests", "42900001", "RATE_LIMITED", "RATE_LIMITED"},
	{"internal-server-error", 500, "Internal Server Error", "50000001", "INTERNAL_SERVER_ERROR", "INTERNAL_ERROR"},
	{"not-implemented", 501, "Not Implemented", "50100001", "NOT_IMPLEMENTED", "NOT_IMPLEMENTED"},
	{"provider-not-configured", 503, "Provider Not Configured", "50300001", "PROVIDER_NOT_CONFIGURED", "PROVIDER_NOT_CONFIGURED"},
}

func kindFor(slug string) kind {
	for _, k := range kinds {
		if k.slug == slug {
			return k
		}
	}
	panic("sdktest: unknown error kind " + slug)
}

// kindForStatus returns the kind a scripted status answers with.
func kindForStatus(status int) kind {
	for _, k := range kinds {
		if k.status == status && k.slug != "provider-not-configured" {
			return k
		}
	}
	name := http.StatusText(status)
	if name == "" {
		name = "Error " + strconv.Itoa(status)
	}
	slug := strings.ToLower(strings.ReplaceAll(name, " ", "-"))
	return kind{slug, status, name, fmt.Sprintf("%03d00000", status%1000), strings.ToUpper(strings.ReplaceAll(name, " ", "_")), strings.ToUpper(strings.ReplaceAll(name, " ", "_"))}
}

// apiError is an error response before it is rendered in an operation's
// format.
type apiError struct {
	kind   kind
	detail string
	fields []fieldError
	header http.Header
}

// fieldError is one field-level error, rendered as a serviceErrors item
// {detail, pointer} or an errors item {field, message}.
type fieldError struct {
	pointer string // JSON pointer, "" for the whole body
	message string
	// field, when set, is the name written in the code/message format
	// instead of one derived from pointer: a Fault's field errors keep the
	// name the test gave.
	field string
}

func newError(slug, detail string, fields ...fieldError) *apiError {
	return &apiError{kind: kindFor(slug), detail: detail, fields: fields}
}

// formatFor returns the error format of op, requested at path: its
// declaration's, or for an endpoint added with HandleFunc (or an unknown
// route) the format of the operations declared in the area of path, the
// only hint the contract gives; the numeric problem format where none is.
func formatFor(op, path string) core.ErrorFormat {
	if d := declared(op); d != nil {
		return d.Errors
	}
	area := core.AreaOfPath(path)
	for _, d := range core.Operations() {
		if d.Area == area {
			return d.Errors
		}
	}
	return core.ProblemErrors
}

// isAccessManagement reports whether op, requested at path, is served by
// the access provider: an operation declared in its area or an endpoint
// added under /auth/access-management (such as createUser). The
// provider-not-configured mode and the provider's rate-limit wording apply
// to them.
func isAccessManagement(op, path string) bool {
	if d := declared(op); d != nil {
		return d.Area == memberplatform.AreaAccessMgmt
	}
	return core.AreaOfPath(path) == memberplatform.AreaAccessMgmt
}

// declared returns the declaration of the operation named op, or nil for
// an endpoint added with HandleFunc and for an unknown route.
func declared(op string) *core.Operation {
	for _, d := range core.Operations() {
		if d.Name == op {
			return d
		}
	}
	return nil
}

// routeOf is the ServeMux pattern of a declared operation.
func routeOf(op *core.Operation) string { return op.Method + " " + op.Path }

// render returns the content type and body of e in format f.
func (e *apiError) render(f core.ErrorFormat, path string) (string, []byte) {
	k := e.kind
	if f == core.CodeMessageErrors {
		doc := codeMessageWire{Code: k.codeMessageCode, Message: e.detail}
		if doc.Message == "" {
			doc.Message = k.title
		}
		if doc.Code == "VALIDATION_ERROR" {
			// Required on the validation error, even when empty.
			doc.Errors = []apierrors.CodeMessageFieldError{}
		}
		for _, fe := range e.fields {
			name := fe.field
			if name == "" {
				name = fieldName(fe.pointer)
			}
			doc.Errors = append(doc.Errors, apierrors.CodeMessageFieldError{Field: name, Message: fe.message})
		}
		b, _ := json.Marshal(doc)
		return codeMessageContentType, b
	}
	doc := problemWire{Type: ProblemTypeBase + k.slug, Title: k.title, Status: k.status, Detail: e.detail, Instance: path, ServiceCode: k.textServiceCode}
	if f == core.ProblemErrors {
		doc.ServiceCode = k.numericServiceCode
	}
	for _, fe := range e.fields {
		doc.ServiceErrors = append(doc.ServiceErrors, apierrors.ServiceError{Detail: fe.message, Pointer: fe.pointer})
	}
	b, _ := json.Marshal(doc)
	return problemContentType, b
}

// fieldName names the field a JSON pointer points at, as the SDK reads it
// ("/permissions/2" is "permissions[2]"), and "" as "body".
func fieldName(pointer string) string {
	if pointer == "" {
		return "body"
	}
	return apierrors.FieldFromPointer(pointer)
}

// handlerFunc serves one operation: it returns the success status and
// body, or an error response.
type handlerFunc func(r *http.Request, body []byte) (int, any, *apiError)

// unknownRoutePattern catches every request no endpoint matches.
const unknownRoutePattern = "/"

// routes serves every declared operation at its declared pattern with its
// handler from handlers; an operation without one answers 501.
func (s *Server) routes(handlers map[string]handlerFunc) *http.ServeMux {
	mux := http.NewServeMux()
	for _, op := range core.Operations() {
		fn := handlers[op.Name]
		if fn == nil {
			fn = func(*http.Request, []byte) (int, any, *apiError) {
				return 0, nil, newError("not-implemented", "sdktest does not implement "+op.Name+" yet")
			}
		}
		mux.Handle(routeOf(op), s.wrap(op.Name, fn))
	}
	mux.Handle(unknownRoutePattern, s.wrap("", func(r *http.Request, _ []byte) (int, any, *apiError) {
		return 0, nil, newError("not-found", "no operation "+r.Method+" "+r.URL.EscapedPath())
	}))
	return mux
}

//go:generate go run ../internal/cmd/genops

// handlers is the fake's behaviour, by operation name: one function per
// declared operation (TestEveryOperationHasAHandler).
func (s *Server) handlers() map[string]handlerFunc {
	return map[string]handlerFunc{
		OpToken: s.token, OpUpdateUser: s.updateUser, OpReplaceRolePermissions: s.replaceRolePermissions,
		OpUpdatePaymentMethod: s.updatePaymentMethod, OpUpsertMemberAddress: s.upsertMemberAddress,
	}
}

// statusRecorder remembers the status written.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write records the implicit 200 of a handler that writes a body without
// calling WriteHeader.
func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets handlers registered with HandleFunc stream, as they could on
// a plain ResponseWriter.
func (w *statusRecorder) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

const maxBody = 1 << 20

// wrap serves a built-in operation: fn's status and body are written as
// JSON, its error in the operation's format.
func (s *Server) wrap(op string, fn handlerFunc) http.Handler {
	return s.serve(op, func(w http.ResponseWriter, r *http.Request, body []byte) {
		status, out, e := fn(r, body)
		if e != nil {
			s.writeError(w, r, op, e)
			return
		}
		b, err := json.Marshal(out)
		if err != nil {
			s.writeError(w, r, op, newError("internal-server-error", err.Error()))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(b)
	})
}

// serve is what every endpoint shares: it records the request, applies the
// latency, scripted faults, body limit and, for API operations, the gate,
// then calls next with the body read.
func (s *Server) serve(op string, next func(w http.ResponseWriter, r *http.Request, body []byte)) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, readErr := io.ReadAll(http.MaxBytesReader(rw, r.Body, maxBody))
		s.mu.Lock()
		s.reqSeq++
		reqID := fmt.Sprintf("sdktest-%06d", s.reqSeq)
		idx := len(s.requests)
		s.requests = append(s.requests, Request{Operation: op, Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
		if op == OpToken {
			s.tokenRequests++
		}
		fault := s.takeFaultLocked(op)
		latency := s.latency
		s.mu.Unlock()

		w := &statusRecorder{ResponseWriter: rw}
		faulted := false
		defer func() {
			s.mu.Lock()
			s.requests[idx].Status = w.status
			s.requests[idx].Faulted = faulted
			s.mu.Unlock()
		}()
		w.Header().Set("X-Request-Id", reqID)
		if !sleep(r.Context(), latency) {
			return
		}
		if fault != nil {
			if !sleep(r.Context(), fault.Delay) {
				return
			}
			if fault.Reset {
				faulted = true
				resetConnection(rw)
				return
			}
			if fault.Status != 0 {
				faulted = true
				s.writeFault(w, r, op, fault)
				return
			}
		}
		if readErr != nil {
			s.writeError(w, r, op, newError("bad-request", "request body unreadable or larger than 1 MiB"))
			return
		}
		if op != OpToken && op != "" {
			if e := s.gate(op, r); e != nil {
				faulted = e.kind.status == http.StatusTooManyRequests
				s.writeError(w, r, op, e)
				return
			}
		}
		next(w, r, body)
	})
}

// gate applies authentication, the provider-not-configured mode and the
// rate limit, in that order.
func (s *Server) gate(op string, r *http.Request) *apiError {
	if s.cfg.authRequired {
		if err := s.verifyBearer(r.Header.Get("Authorization"), time.Now()); err != nil {
			return newError("unauthorized", err.Error())
		}
	}
	s.mu.Lock()
	notConfigured := s.notConfigured
	s.mu.Unlock()
	if notConfigured && isAccessManagement(op, r.URL.Path) {
		return newError("provider-not-configured", "The access-management provider is not configured for this environment")
	}
	s.mu.Lock()
	wait := s.rateLimitedLocked()
	s.mu.Unlock()
	if wait > 0 {
		detail := "Rate limit exceeded"
		if isAccessManagement(op, r.URL.Path) {
			detail = "The configured access provider rate limited the request"
		}
		e := newError("rate-limited", detail)
		e.header = http.Header{"Retry-After": {retryAfterSeconds(wait)}}
		return e
	}
	return nil
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, op string, e *apiError) {
	ct, b := e.render(formatFor(op, r.URL.Path), r.URL.EscapedPath())
	for k, v := range e.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(e.kind.status)
	_, _ = w.Write(b)
}

func (s *Server) writeFault(w http.ResponseWriter, r *http.Request, op string, f *Fault) {
	for k, v := range f.Header {
		w.Header()[k] = v
	}
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", retryAfterSeconds(f.RetryAfter))
	}
	if f.Body == "" {
		k := kindForStatus(f.Status)
		detail := "Scripted " + strconv.Itoa(f.Status) + " response"
		if f.Status == http.StatusTooManyRequests && isAccessManagement(op, r.URL.Path) {
			detail = "The configured access provider rate limited the request"
		}
		if f.Status >= 200 && f.Status < 300 {
			w.WriteHeader(f.Status)
			return
		}
		ct, b := (&apiError{kind: k, detail: detail, fields: faultFields(f.Fields)}).render(formatFor(op, r.URL.Path), r.URL.EscapedPath())
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", ct)
		}
		w.WriteHeader(f.Status)
		_, _ = w.Write(b)
		return
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(f.Status)
	_, _ = io.WriteString(w, f.Body)
}

// ---- request body checking ----

// object is a decoded JSON request body.
type object map[string]json.RawMessage

// parseObject decodes body as a JSON object and reports members not in
// allowed as field errors.
func parseObject(body []byte, allowed ...string) (object, *apiError) {
	var o object
	if err := json.Unmarshal(body, &o); err != nil || o == nil {
		return nil, newError("bad-request", "request body must be a JSON object")
	}
	var unknown []string
	for k := range o {
		if !contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		var fs []fieldError
		for _, k := range unknown {
			fs = append(fs, fieldError{pointer: "/" + escapePointer(k), message: "unknown field"})
		}
		return nil, newError("bad-request", "request body has unknown fields", fs...)
	}
	return o, nil
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// str reads member key as a string. present is false when absent; null is
// reported through isNull (and is a type error unless the caller allows it).
func (o object) str(key string) (val string, present, isNull bool, typeErr *fieldError) {
	raw, ok := o[key]
	if !ok {
		return "", false, false, nil
	}
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return "", true, true, nil
	}
	if json.Unmarshal(raw, &val) != nil {
		return "", true, false, &fieldError{pointer: "/" + key, message: "must be a string"}
	}
	return val, true, false, nil
}

// ---- operations ----

// withRecord runs change with s.mu held on the record m holds for id, or
// answers missing when it holds none: each operation checks the request
// first, without the lock, then finds and changes one record under it.
func withRecord[T any](s *Server, m map[string]T, id string, missing *apiError, change func(T) (int, any, *apiError)) (int, any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := m[id]
	if !ok {
		return 0, nil, missing
	}
	return change(rec)
}

func (s *Server) token(r *http.Request, body []byte) (int, any, *apiError) {
	now := time.Now()
	if err := s.verifySigV4(r, body, now); err != nil {
		if errors.Is(err, errMissingAuth) {
			return 0, nil, newError("unauthorized", "a SigV4-signed request is required")
		}
		return 0, nil, newError("forbidden", "SigV4 verification failed: "+err.Error())
	}
	s.mu.Lock()
	s.tokensIssued++
	s.seq++
	n := s.seq
	s.mu.Unlock()
	tok, exp := s.signJWT(now, n)
	return http.StatusOK, struct {
		AccessToken string `json:"accessToken"`
		TokenType   string `json:"tokenType"`
		ExpiresIn   int64  `json:"expiresIn"`
	}{tok, "Bearer", int64(exp.Sub(now).Round(time.Second) / time.Second)}, nil
}

func (s *Server) updateUser(r *http.Request, body []byte) (int, any, *apiError) {
	id := r.PathValue("userId")
	o, e := parseObject(body, "mobileNumber", "email", "firstName", "lastName")
	if e != nil {
		return 0, nil, e
	}
	vals := map[string]*string{}
	var typeErrs, ruleErrs []fieldError
	for _, k := range []string{"mobileNumber", "email", "firstName", "lastName"} {
		v, present, isNull, te := o.str(k)
		switch {
		case te != nil:
			typeErrs = append(typeErrs, *te)
		case isNull:
			typeErrs = append(typeErrs, fieldError{pointer: "/" + k, message: "must be a string, not null"})
		case present:
			vals[k] = &v
		}
	}
	if len(typeErrs) > 0 {
		return 0, nil, newError("bad-request", "request body has invalid fields", typeErrs...)
	}
	if len(vals) == 0 {
		return 0, nil, newError("unprocessable-entity", "at least one of mobileNumber, email, firstName or lastName must be supplied",
			fieldError{pointer: "", message: "at least one of mobileNumber, email, firstName or lastName must be supplied"})
	}
	if v := vals["mobileNumber"]; v != nil && !validate.E164(*v) {
		ruleErrs = append(ruleErrs, fieldError{pointer: "/mobileNumber", message: "must be an E.164 number such as +61412345678"})
	}
	if v := vals["email"]; v != nil {
		if !validate.Email(*v) {
			ruleErrs = append(ruleErrs, fieldError{pointer: "/email", message: "must be an email address"})
		}
	}
	for _, k := range []string{"firstName", "lastName"} {
		if v := vals[k]; v != nil && validate.Blank(*v) {
			ruleErrs = append(ruleErrs, fieldError{pointer: "/" + k, message: "must not be empty"})
		}
	}
	if len(ruleErrs) > 0 {
		return 0, nil, newError("unprocessable-entity", "request body failed validation", ruleErrs...)
	}
	return withRecord(s, s.users, id, newError("not-found", "user "+id+" not found"), func(u *User) (int, any, *apiError) {
		if v := vals["email"]; v != nil {
			for oid, other := range s.users {
				if oid != id && strings.EqualFold(other.Email, *v) {
					return 0, nil, newError("conflict", "email address is already used by another user", fieldError{pointer: "/email", message: "already used by another user"})
				}
			}
			u.Email = *v
		}
		if v := vals["mobileNumber"]; v != nil {
			u.MobileNumber = *v
		}
		if v := vals["firstName"]; v != nil {
			u.FirstName = *v
		}
		if v := vals["lastName"]; v != nil {
			u.LastName = *v
		}
		return http.StatusOK, *u, nil
	})
}

func (s *Server) replaceRolePermissions(r *http.Request, body []byte) (int, any, *apiError) {
	org, slug := r.PathValue("organizationId"), r.PathValue("slug")
	if !validate.RoleSlug(slug) {
		return 0, nil, newError("bad-request", "role slug must match ^org-[a-z0-9_-]+$")
	}
	o, e := parseObject(body, "permissions")
	if e != nil {
		return 0, nil, e
	}
	raw, ok := o["permissions"]
	if !ok {
		return 0, nil, newError("bad-request", "permissions is required", fieldError{pointer: "/permissions", message: "is required"})
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || items == nil {
		return 0, nil, newError("bad-request", "permissions must be an array of strings", fieldError{pointer: "/permissions", message: "must be an array of strings"})
	}
	perms := make([]string, 0, len(items))
	var typeErrs, ruleErrs []fieldError
	for i, it := range items {
		var p string
		ptr := "/permissions/" + strconv.Itoa(i)
		if json.Unmarshal(it, &p) != nil || string(bytes.TrimSpace(it)) == "null" {
			typeErrs = append(typeErrs, fieldError{pointer: ptr, message: "must be a string"})
			continue
		}
		if !validate.PermissionSlug(p) {
			ruleErrs = append(ruleErrs, fieldError{pointer: ptr, message: "must match ^[a-z0-9:._*-]+$"})
		}
		perms = append(perms, p)
	}
	if len(typeErrs) > 0 {
		return 0, nil, newError("bad-request", "permissions must be an array of strings", typeErrs...)
	}
	if len(ruleErrs) > 0 {
		return 0, nil, newError("unprocessable-entity", "permission slugs may contain only lowercase letters, digits, colon, period, underscore, hyphen and asterisk", ruleErrs...)
	}
	return withRecord(s, s.roles, org, newError("not-found", "organization "+org+" not found"), func(roles map[string][]string) (int, any, *apiError) {
		if _, ok := roles[slug]; !ok {
			return 0, nil, newError("not-found", "role "+slug+" not found in organization "+org)
		}
		// Rule 2: unknown permission slugs are created at the provider first.
		for _, p := range perms {
			if !s.providerPerms[p] {
				s.providerPerms[p] = true
				s.createdPerms = append(s.createdPerms, p)
			}
		}
		roles[slug] = normalizePerms(perms)
		return http.StatusOK, struct {
			Permissions []string `json:"permissions"`
		}{append([]string{}, roles[slug]...)}, nil
	})
}

func (s *Server) updatePaymentMethod(r *http.Request, body []byte) (int, any, *apiError) {
	id := r.PathValue("id")
	if !validate.UUID(id) {
		return 0, nil, newError("bad-request", "payment method id must be a UUID")
	}
	o, e := parseObject(body, "setAsPrimary", "expDate")
	if e != nil {
		return 0, nil, e
	}
	var fs []fieldError
	var primary *bool
	if raw, ok := o["setAsPrimary"]; ok {
		var b bool
		if json.Unmarshal(raw, &b) != nil || string(bytes.TrimSpace(raw)) == "null" {
			fs = append(fs, fieldError{pointer: "/setAsPrimary", message: "must be a boolean"})
		} else {
			primary = &b
		}
	}
	exp, expPresent, expNull, te := o.str("expDate")
	switch {
	case te != nil:
		fs = append(fs, *te)
	case expNull:
		fs = append(fs, fieldError{pointer: "/expDate", message: "must be a string, not null"})
	case expPresent:
		var ok bool
		if exp, ok = normalizeExpDate(exp); !ok {
			fs = append(fs, fieldError{pointer: "/expDate", message: expDateFormats})
		}
	}
	if len(fs) > 0 {
		return 0, nil, newError("bad-request", "request body failed validation", fs...)
	}
	missing := newError("not-implemented", "updating payment method "+id+" is not implemented in this environment")
	return withRecord(s, s.paymentMethods, id, missing, func(pm *PaymentMethod) (int, any, *apiError) {
		if primary != nil {
			if *primary {
				s.clearPrimaryLocked(pm.BillingAccountID)
			}
			pm.Primary = *primary
		}
		if expPresent {
			pm.ExpDate = exp
		}
		pm.UpdatedAt = s.now()
		// The SDK's own type, with whole-second UTC timestamps as the
		// platform reports them (a seeded time may carry fractions and
		// another zone).
		out := *pm
		out.CreatedAt, out.UpdatedAt = pm.CreatedAt.UTC().Truncate(time.Second), pm.UpdatedAt.UTC().Truncate(time.Second)
		return http.StatusOK, out, nil
	})
}

func (s *Server) upsertMemberAddress(r *http.Request, body []byte) (int, any, *apiError) {
	memberID := r.PathValue("memberId")
	if !validate.UUID(memberID) {
		return 0, nil, newError("bad-request", "Validation failed", fieldError{pointer: "/memberId", message: "must be a UUID"})
	}
	o, e := parseObject(body, "addressFull", "addressLineOne", "addressLineTwo", "state", "suburb", "postcode", "country")
	if e != nil {
		e.detail = "Validation failed"
		return 0, nil, e
	}
	vals := map[string]*string{}
	var fs []fieldError
	lineTwoNull := false
	for _, k := range []string{"addressFull", "addressLineOne", "addressLineTwo", "state", "suburb", "postcode", "country"} {
		v, present, isNull, te := o.str(k)
		required := k != "addressFull" && k != "addressLineTwo"
		switch {
		case te != nil:
			fs = append(fs, *te)
		case isNull && k == "addressLineTwo":
			lineTwoNull = true
		case isNull:
			fs = append(fs, fieldError{pointer: "/" + k, message: "must be a string, not null"})
		case !present && required:
			fs = append(fs, fieldError{pointer: "/" + k, message: "is required"})
		case present && required && validate.Blank(v):
			fs = append(fs, fieldError{pointer: "/" + k, message: "must not be empty"})
		case present:
			vals[k] = &v
		}
	}
	if len(fs) > 0 {
		return 0, nil, newError("bad-request", "Validation failed", fs...)
	}
	return withRecord(s, s.members, memberID, newError("not-found", "member "+memberID+" not found"), func(a *MemberAddress) (int, any, *apiError) {
		now := s.now().Format(time.RFC3339)
		status := http.StatusOK
		if a == nil {
			status = http.StatusCreated
			a = &MemberAddress{ID: s.newUUIDLocked(), TenantID: s.cfg.tenantID, CreatedDate: &now}
			s.members[memberID] = a
		}
		set := func(dst **string, k string) {
			if v := vals[k]; v != nil {
				cp := *v
				*dst = &cp
			}
		}
		set(&a.AddressFull, "addressFull")
		set(&a.AddressLineOne, "addressLineOne")
		set(&a.AddressLineTwo, "addressLineTwo")
		if lineTwoNull {
			a.AddressLineTwo = nil
		}
		set(&a.State, "state")
		set(&a.Suburb, "suburb")
		set(&a.Postcode, "postcode")
		set(&a.Country, "country")
		a.LastModifiedDate = &now
		return status, *a, nil
	})
}
