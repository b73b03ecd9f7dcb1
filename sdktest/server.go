package sdktest

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
)

// Default SigV4 credentials and scope the token endpoint accepts, unless
// changed with WithCredentials, WithRegion or WithSigningService.
const (
	DefaultAccessKeyID     = "AKIDSDKTEST000000000"
	DefaultSecretAccessKey = "sdktest/secret/access/key/not/a/real/one"
	DefaultRegion          = "us-east-1"
	DefaultTokenLifetime   = 15 * time.Minute
	// MaxClockSkew is how far X-Amz-Date may be from the server's clock.
	MaxClockSkew = 5 * time.Minute
)

// DefaultTenantID is the tenantId of member addresses unless WithTenantID
// is given.
const DefaultTenantID = "tenant_sdktest"

// Option configures a Server.
type Option func(*config)

type config struct {
	accessKeyID, secretAccessKey, sessionToken string
	region, service                            string
	authRequired                               bool
	tokenLifetime                              time.Duration
	clock                                      func() time.Time
	tenantID                                   string
}

// WithCredentials sets the SigV4 access key pair (and optional session
// token, "" for none) the token endpoint accepts.
func WithCredentials(accessKeyID, secretAccessKey, sessionToken string) Option {
	return func(c *config) {
		c.accessKeyID, c.secretAccessKey, c.sessionToken = accessKeyID, secretAccessKey, sessionToken
	}
}

// WithRegion sets the SigV4 signing region the token endpoint accepts
// (default DefaultRegion).
func WithRegion(region string) Option { return func(c *config) { c.region = region } }

// WithSigningService sets the SigV4 signing name the token endpoint accepts
// (default client.DefaultSigV4Service).
func WithSigningService(name string) Option { return func(c *config) { c.service = name } }

// WithoutAuth is the platform's local-development mode: the API operations
// accept requests without a bearer token (any Authorization header is
// ignored). The token endpoint still works. Clients from Client and
// NewClient then send no token.
func WithoutAuth() Option { return func(c *config) { c.authRequired = false } }

// WithTokenLifetime sets the lifetime of issued JWTs (default
// DefaultTokenLifetime).
func WithTokenLifetime(d time.Duration) Option { return func(c *config) { c.tokenLifetime = d } }

// WithClock sets the clock used for resource timestamps (updatedAt,
// createdDate, lastModifiedDate and defaults of seeded records), so tests
// and examples can print deterministic values. Authentication (SigV4 skew,
// JWT expiry) always uses the real time.
func WithClock(now func() time.Time) Option { return func(c *config) { c.clock = now } }

// WithTenantID sets the tenantId reported on member addresses.
func WithTenantID(id string) Option { return func(c *config) { c.tenantID = id } }

// Server is a running fake platform. Create it with NewServer (tests) or
// Start (programs). All methods are safe for concurrent use.
type Server struct {
	// URL is the base URL of the fake, such as "http://127.0.0.1:41234".
	URL string

	ts     *httptest.Server
	mux    *http.ServeMux
	cfg    config
	jwtKey []byte
	tb     testing.TB

	// routesMu serializes HandleFunc, so each new pattern is checked
	// against every pattern registered before it.
	routesMu       sync.Mutex
	customPatterns []string

	mu             sync.Mutex
	users          map[string]*accessmgmt.ProviderUser
	roles          map[string]map[string][]string // organization -> role slug -> permissions
	providerPerms  map[string]bool
	createdPerms   []string
	paymentMethods map[string]*payments.PaymentMethod
	members        map[string]*customer.MemberAddress // nil value: member without an address
	requests       []Request
	tokenRequests  int
	tokensIssued   int
	seq            int
	reqSeq         int
	faults         []*scriptedFault
	latency        time.Duration
	notConfigured  bool
	rate           rateLimit
	closeOnce      sync.Once
}

// NewServer starts a fake platform for a test and closes it when the test
// (or benchmark) ends. Client reports its errors through tb.
func NewServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := Start(opts...)
	s.tb = tb
	tb.Cleanup(s.Close)
	return s
}

// Start starts a fake platform outside of a test (examples, demos). Call
// Close when done.
func Start(opts ...Option) *Server {
	s := &Server{
		cfg: config{
			accessKeyID: DefaultAccessKeyID, secretAccessKey: DefaultSecretAccessKey,
			region: DefaultRegion, service: client.DefaultSigV4Service,
			authRequired: true, tokenLifetime: DefaultTokenLifetime,
			clock: time.Now, tenantID: DefaultTenantID,
		},
		jwtKey:         make([]byte, 32),
		users:          map[string]*accessmgmt.ProviderUser{},
		roles:          map[string]map[string][]string{},
		providerPerms:  map[string]bool{},
		paymentMethods: map[string]*payments.PaymentMethod{},
		members:        map[string]*customer.MemberAddress{},
	}
	for _, o := range opts {
		if o != nil {
			o(&s.cfg)
		}
	}
	_, _ = rand.Read(s.jwtKey)
	s.mux = s.routes(s.handlers())
	s.ts = httptest.NewServer(s.mux)
	s.URL = s.ts.URL
	return s
}

// Close shuts the server down: it closes every client connection (requests
// still in flight fail) and waits for the handlers to return. It is safe to
// call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.ts.CloseClientConnections()
		s.ts.Close()
	})
}

// Credentials returns a provider of the SigV4 credentials the token
// endpoint accepts.
func (s *Server) Credentials() aws.CredentialsProvider {
	return credentials.NewStaticCredentialsProvider(s.cfg.accessKeyID, s.cfg.secretAccessKey, s.cfg.sessionToken)
}

// Region returns the SigV4 signing region the token endpoint accepts.
func (s *Server) Region() string { return s.cfg.region }

// HTTPClient returns an *http.Client for talking to the server directly; its
// connections are closed with the server.
func (s *Server) HTTPClient() *http.Client { return s.ts.Client() }

// ClientOptions returns the options that wire a client to this server,
// followed by extra: the base URL, the server's transport, a SigV4 token
// source using Credentials (or no token with WithoutAuth), and a fast retry
// backoff (1ms to 20ms) so retried faults do not slow tests down, and no
// logger. Every
// setting is explicit, so MEMBERPLATFORM_* and AWS_* environment variables
// cannot leak in; extra options come last and win. The client sends over the
// server's transport, not a pool of its own: option.WithMaxConnsPerHost,
// which bounds the client's own pool, fails client.New beside it, so leave
// it out of the options a test client shares with production.
func (s *Server) ClientOptions(extra ...option.RequestOption) []option.RequestOption {
	opts := []option.RequestOption{
		option.WithBaseURL(s.URL),
		option.WithTransport(s.ts.Client().Transport),
		option.WithRetryBackoff(time.Millisecond, 20*time.Millisecond),
		option.WithLogger(nil), // MEMBERPLATFORM_LOG stays out of tests; pass WithLogger in extra to log
	}
	if s.cfg.authRequired {
		src, err := client.NewSigV4TokenSource(client.SigV4Config{Credentials: s.Credentials(), Region: s.cfg.region, Service: s.cfg.service})
		if err != nil { // unreachable: credentials and region are set
			panic(err)
		}
		opts = append(opts, option.WithTokenSource(src))
	} else {
		opts = append(opts, option.WithTokenSource(nil))
	}
	return append(opts, extra...)
}

// NewClient returns a client wired to this server (see ClientOptions).
func (s *Server) NewClient(extra ...option.RequestOption) (*client.Client, error) {
	return client.New(s.ClientOptions(extra...)...)
}

// Client is NewClient for tests: it fails the test given to NewServer (or
// panics, for a server from Start) when the client cannot be built.
func (s *Server) Client(extra ...option.RequestOption) *client.Client {
	c, err := s.NewClient(extra...)
	if err != nil {
		if s.tb != nil {
			s.tb.Helper()
			s.tb.Fatalf("sdktest: building client: %v", err)
		}
		panic(fmt.Sprintf("sdktest: building client: %v", err))
	}
	return c
}

// Request is one request the server received.
type Request struct {
	// Operation is one of the Op* constants, the pattern of an endpoint
	// added with HandleFunc, or "" for an unknown route.
	Operation string
	Method    string
	Path      string // escaped URL path
	Query     string // the encoded query, without "?"; "" for none
	Header    http.Header
	Body      []byte
	// Status is the status answered, or 0 when the connection was reset.
	Status int
	// Faulted reports whether a scripted fault or the rate limit answered.
	Faulted bool
}

// Requests returns copies of every request received so far (token requests
// included), in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		r.Header = r.Header.Clone()
		r.Body = slices.Clone(r.Body)
		out[i] = r
	}
	return out
}

// RequestCount returns how many requests for operation (an Op* constant,
// or a HandleFunc pattern) were received; "" counts every request.
func (s *Server) RequestCount(operation string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if operation == "" || r.Operation == operation {
			n++
		}
	}
	return n
}

// TokenRequests returns how many POST /auth/token requests were received,
// valid or not.
func (s *Server) TokenRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokenRequests
}

// TokensIssued returns how many tokens the token endpoint issued.
func (s *Server) TokensIssued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokensIssued
}

// Reset forgets the recorded requests and token counts (seeded data,
// faults and modes are kept).
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests, s.tokenRequests, s.tokensIssued = nil, 0, 0
}

// User is the SDK's provider user: the fake stores and reports users in the
// same type UpdateUser returns, so a test can compare the two directly.
// The alias keeps sdktest.User{...} literals short.
type User = accessmgmt.ProviderUser

// AddUser seeds a provider user, replacing any with the same ID, and
// returns it. An empty ID is replaced by a generated one ("user_0001"...).
func (s *Server) AddUser(u accessmgmt.ProviderUser) accessmgmt.ProviderUser {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u.ID == "" {
		s.seq++
		u.ID = fmt.Sprintf("user_%04d", s.seq)
	}
	cp := u
	s.users[u.ID] = &cp
	return u
}

// User returns the provider user id as currently stored.
func (s *Server) User(id string) (accessmgmt.ProviderUser, bool) {
	return stored(s, s.users, id)
}

// AddRole seeds the role slug of organization org with permissions (the
// organization is created if needed). Its permissions become known to the
// provider.
func (s *Server) AddRole(org, slug string, permissions ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.roles[org] == nil {
		s.roles[org] = map[string][]string{}
	}
	s.roles[org][slug] = normalizePerms(permissions)
	for _, p := range permissions {
		s.providerPerms[p] = true
	}
}

// AddProviderPermissions makes permission slugs known to the provider
// without assigning them to a role.
func (s *Server) AddProviderPermissions(permissions ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range permissions {
		s.providerPerms[p] = true
	}
}

// RolePermissions returns the sorted permission set of a role; ok is false
// when the organization or role is unknown.
func (s *Server) RolePermissions(org, slug string) (permissions []string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.roles[org][slug]
	return slices.Clone(p), ok
}

// ProviderPermissions returns, sorted, every permission slug the provider
// knows: seeded ones and those created by ReplaceRolePermissions.
func (s *Server) ProviderPermissions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.providerPerms))
	for p := range s.providerPerms {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// CreatedPermissions returns, in creation order, the permission slugs the
// server created at the provider because a role update named them before
// they existed (contract rule 2).
func (s *Server) CreatedPermissions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.createdPerms)
}

func normalizePerms(p []string) []string {
	out := slices.Clone(p)
	sort.Strings(out)
	return slices.Compact(out)
}

// PaymentMethod is the SDK's payment method: the fake stores and reports
// payment methods in the same type UpdatePaymentMethod returns. The alias
// keeps sdktest.PaymentMethod{...} literals short.
type PaymentMethod = payments.PaymentMethod

// AddPaymentMethod seeds a payment method and returns it. Empty fields get
// defaults: generated UUIDs for ID and BillingAccountID, "4242", "visa",
// "12/2030", and the server clock for the timestamps. Seeding a primary
// method makes the others of its billing account non-primary. ExpDate is
// stored as given (the update operation normalizes what it receives to
// MM/YYYY), so a test can seed the odd data a real platform might hold.
func (s *Server) AddPaymentMethod(pm payments.PaymentMethod) payments.PaymentMethod {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pm.ID == "" {
		pm.ID = s.newUUIDLocked()
	}
	if pm.BillingAccountID == "" {
		pm.BillingAccountID = s.newUUIDLocked()
	}
	if pm.LastFourDigits == "" {
		pm.LastFourDigits = "4242"
	}
	if pm.CardBrand == "" {
		pm.CardBrand = "visa"
	}
	if pm.ExpDate == "" {
		pm.ExpDate = "12/2030"
	}
	now := s.now()
	if pm.CreatedAt.IsZero() {
		pm.CreatedAt = now
	}
	if pm.UpdatedAt.IsZero() {
		pm.UpdatedAt = pm.CreatedAt
	}
	if pm.Primary {
		s.clearPrimaryLocked(pm.BillingAccountID)
	}
	cp := pm
	s.paymentMethods[pm.ID] = &cp
	return pm
}

// PaymentMethod returns the payment method id as currently stored.
func (s *Server) PaymentMethod(id string) (payments.PaymentMethod, bool) {
	return stored(s, s.paymentMethods, id)
}

func (s *Server) clearPrimaryLocked(billingAccountID string) {
	for _, o := range s.paymentMethods {
		if o.BillingAccountID == billingAccountID {
			o.Primary = false
		}
	}
}

// MemberAddress is the SDK's member address: the fake stores and reports
// addresses in the same type UpsertMemberAddress returns (nil fields are
// null on the wire). The alias keeps sdktest.MemberAddress short.
type MemberAddress = customer.MemberAddress

// AddMember seeds a member without an address and returns its ID; an empty
// id is replaced by a generated UUID. The address upsert answers "member
// not found" for members that were not added.
func (s *Server) AddMember(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" {
		id = s.newUUIDLocked()
	}
	if _, ok := s.members[id]; !ok {
		s.members[id] = nil
	}
	return id
}

// MemberAddress returns the address stored for member id; ok is false when
// the member is unknown or has no address yet.
func (s *Server) MemberAddress(id string) (customer.MemberAddress, bool) {
	return stored(s, s.members, id)
}

// stored returns a copy of the record m holds for id; ok is false when it
// holds none (or, for members, no address yet).
func stored[T any](s *Server, m map[string]*T, id string) (rec T, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := m[id]; p != nil {
		return *p, true
	}
	return rec, false
}

// newUUIDLocked returns a deterministic version-4-shaped UUID.
func (s *Server) newUUIDLocked() string {
	s.seq++
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", s.seq)
}

func (s *Server) now() time.Time { return s.cfg.clock().UTC() }
