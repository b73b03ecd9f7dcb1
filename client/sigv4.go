package client

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"

	memberplatform "github.com/memberplatform/memberplatform-go"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/validate"
	"github.com/memberplatform/memberplatform-go/option"
)

// DefaultSigV4Service, API Gateway's signing name, is assumed (the contract
// names none) when SigV4Config.Service and MEMBERPLATFORM_SIGV4_SERVICE are empty.
const DefaultSigV4Service = "execute-api"

// SigV4Config configures a SigV4TokenSource.
type SigV4Config struct {
	// Credentials signs the token request, through an aws.CredentialsCache:
	// any provider (static keys, profiles, SSO, IMDS). Required.
	Credentials aws.CredentialsProvider
	Region      string // the signing region, such as "ap-southeast-2"; required
	Service     string // the signing name; DefaultSigV4Service when empty
	// BaseURL is where POST /auth/token goes (no plain http to a host that
	// is not loopback); empty, the source uses its client's base URL and
	// transport. Options apply to the token requests of its own BaseURL.
	BaseURL string
	Options []option.RequestOption
}

// SigV4TokenSource obtains the service JWT from POST /auth/token (no body),
// signed with AWS Signature Version 4 last, on every attempt, with any
// session token as X-Amz-Security-Token.
//
// Clock skew: a signature is valid for 5 minutes around the token
// endpoint's clock, so a host whose clock is off (a VM after suspend, a
// container without NTP) would be refused on every fetch. When the
// endpoint refuses a request (400, 401 or 403) and its answer's Date is
// more than a minute from the host's clock, the source signs again, once,
// by the endpoint's time, and keeps dating its signatures by that offset
// (and reading absolute expiries through it) until an answer's Date shows
// the clocks agree again: at most one refused request per change of skew,
// never a loop. A refusal whose Date agrees with the offset in use is
// returned as it is.
//
// The contract does not show the token response. Accepted: any 2xx with a
// JSON object holding the token in accessToken, access_token or token, and
// its expiry in expiresIn or expires_in (seconds), or expiresAt or
// expires_at (RFC 3339 or epoch seconds); else the JWT's exp claim (read,
// not verified); else DefaultTokenLifetime. An unusable response is an
// *errors.TokenError with the status and a body snippet.
type SigV4TokenSource struct {
	creds   aws.CredentialsProvider
	region  string
	service string
	signer  *v4.Signer
	now     func() time.Time
	baseURL string

	mu       sync.Mutex
	pipeline *core.Client // its own (with a BaseURL), or the client's once bound

	// skew is the token endpoint's clock minus the host's, in nanoseconds,
	// learned from its answers' Date (0 while they agree within
	// maxClockSkew): signatures are dated by the endpoint's clock.
	skew atomic.Int64
}

// DefaultTokenLifetime is assumed for a token without expiry or exp claim.
const DefaultTokenLifetime = 5 * time.Minute

// NewSigV4TokenSource returns a SigV4 token source, or an
// *errors.ValidationError naming each missing or invalid field.
func NewSigV4TokenSource(cfg SigV4Config) (*SigV4TokenSource, error) {
	v := validate.Errors{Operation: "client.NewSigV4TokenSource"}
	if cfg.Credentials == nil {
		v.Add("Credentials", "is required")
	} else if err := core.CheckCredentialsProvider(cfg.Credentials); err != nil {
		v.Add("Credentials", "is "+err.Error()) // a typed nil would panic in the AWS SDK's own goroutine
	}
	if cfg.Region == "" {
		v.Add("Region", "is required (or set AWS_REGION)")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	creds := cfg.Credentials
	if _, cached := creds.(*aws.CredentialsCache); !cached {
		creds = aws.NewCredentialsCache(creds)
	}
	src := &SigV4TokenSource{creds: creds, region: cfg.Region, service: cmp.Or(cfg.Service, DefaultSigV4Service), signer: v4.NewSigner(),
		now: time.Now, baseURL: cfg.BaseURL}
	if cfg.BaseURL == "" {
		return src, nil
	}
	// Built now, so a bad BaseURL or option fails here, not on first use.
	settings := core.DefaultSettings()
	err := core.Apply(&settings, false, append([]option.RequestOption{option.WithBaseURL(cfg.BaseURL)}, cfg.Options...))
	if err == nil {
		err = core.CheckBearerTransport(&settings) // the response carries the bearer token
	}
	if err == nil {
		src.pipeline, err = core.New(settings, nil)
	}
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "memberplatform: ")
		field := "BaseURL"
		if strings.Contains(msg, "option.With") { // one of cfg.Options refused itself
			field = "Options"
		}
		v.Add(field, msg)
		return nil, v.Err()
	}
	return src, nil
}

// SigV4CredentialsFromEnv reads static AWS credentials from
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, and the
// region from AWS_REGION or AWS_DEFAULT_REGION; ok is false without both keys.
func SigV4CredentialsFromEnv() (creds aws.CredentialsProvider, region string, ok bool) {
	id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" || secret == "" {
		return nil, "", false
	}
	region = cmp.Or(os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"))
	return credentials.NewStaticCredentialsProvider(id, secret, os.Getenv("AWS_SESSION_TOKEN")), region, true
}

// The token call changes no state a repeat could corrupt: safe to retry.
var tokenOp = core.Declare(core.Operation{Name: "auth.Token", Method: http.MethodPost, Path: "/auth/token",
	Area: memberplatform.AreaToken, Errors: core.ProblemTextErrors, Idempotent: true, Credential: true})

// bind gives a source without its own BaseURL the client's settings, less
// the bearer token; a second client would get tokens from the first's platform.
func (s *SigV4TokenSource) bind(settings core.Settings) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.baseURL != "":
		return nil
	case s.pipeline != nil:
		return errors.New("memberplatform: this SigV4TokenSource already serves another client; create one per client (or set SigV4Config.BaseURL)")
	}
	settings.TokenSource = nil
	s.pipeline, err = core.New(settings, nil)
	return err
}

// Token requests a fresh token; the client's cache decides when.
func (s *SigV4TokenSource) Token(ctx context.Context) (Token, error) {
	s.mu.Lock()
	pipeline := s.pipeline
	s.mu.Unlock()
	if pipeline == nil {
		return Token{}, &apierrors.TokenError{Reason: "configuration",
			Err: errors.New("memberplatform: SigV4 token source has no base URL: set SigV4Config.BaseURL or give it to option.WithTokenSource")}
	}
	var body []byte
	var sent []string
	status := 0
	var err error
	for resigned := false; ; resigned = true {
		var resp *http.Response
		call := &core.Call{Op: tokenOp, Result: &body, Status: &status, Sign: s.sign, Secrets: &sent}
		used := s.skew.Load()
		err = core.Do(ctx, pipeline, call, []option.RequestOption{option.WithResponseInto(&resp)})
		changed := resp != nil && s.learnSkew(ctx, pipeline.Logger(), resp.Header.Get("Date"), used)
		if err == nil || resigned || !changed || !refusedSignature(err) {
			break
		}
	}
	if err != nil {
		if _, ok := errors.AsType[*apierrors.TokenError](err); ok {
			return Token{}, err
		}
		if ae, ok := errors.AsType[*apierrors.Error](err); ok {
			status = ae.StatusCode
		}
		return Token{}, &apierrors.TokenError{StatusCode: status, Err: err}
	}
	// Absolute expiries are by the endpoint's clock: read at its time,
	// then moved to the host's.
	skew := time.Duration(s.skew.Load())
	tok, err := parseTokenResponse(status, body, s.now().Add(skew), sent)
	if err == nil {
		tok.Expiry = tok.Expiry.Add(-skew)
	}
	return tok, err
}

// maxClockSkew is how far an answer's Date may be from the host's clock
// before the source dates its signatures by the token endpoint's clock.
const maxClockSkew = time.Minute

// learnSkew reads the token endpoint's clock from an answer's Date and
// reports whether the offset changed from used, the one the request was
// signed with: set when more than maxClockSkew off the host's clock,
// cleared when within it.
func (s *SigV4TokenSource) learnSkew(ctx context.Context, logger *slog.Logger, date string, used int64) bool {
	at, err := http.ParseTime(date)
	if err != nil {
		return false
	}
	measured := at.Sub(s.now()).Round(time.Second) // Date has whole seconds
	if measured.Abs() <= maxClockSkew {
		measured = 0
	}
	if (measured - time.Duration(used)).Abs() <= maxClockSkew {
		return false // the offset in use already agrees
	}
	s.skew.Store(int64(measured))
	if logger != nil { // a host clock off by minutes is worth an operator's look
		msg := "memberplatform: the token endpoint's clock and this host's agree again; SigV4 signatures are dated by the host's clock"
		if measured != 0 {
			msg = "memberplatform: the token endpoint's clock is off from this host's (by its answers' Date); SigV4 signatures are dated by the endpoint's clock"
		}
		logger.LogAttrs(ctx, slog.LevelWarn, msg, slog.String("operation", tokenOp.Name), slog.Duration("endpoint_ahead_by", measured))
	}
	return true
}

// refusedSignature reports whether err is the token endpoint refusing the
// request (400, 401 or 403): what a signature dated too far from its
// clock gets.
func refusedSignature(err error) bool {
	ae, ok := errors.AsType[*apierrors.Error](err)
	return ok && (ae.StatusCode == http.StatusBadRequest || ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden)
}

// sign runs last before every attempt, dating the signature by the token
// endpoint's clock as far as its answers told it.
func (s *SigV4TokenSource) sign(req *http.Request, body []byte) error {
	creds, err := s.creds.Retrieve(req.Context())
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	at := s.now().Add(time.Duration(s.skew.Load()))
	return s.signer.SignHTTP(req.Context(), creds, req, hex.EncodeToString(sum[:]), s.service, s.region, at)
}
