package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/option"
)

// DefaultSigV4Service is the SigV4 signing name used when SigV4Config.Service
// and MEMBERPLATFORM_SIGV4_SERVICE are empty. The contract does not name it;
// "execute-api" is what API Gateway IAM authorization expects, the likeliest
// front for POST /auth/token. This is an assumption.
const DefaultSigV4Service = "execute-api"

// SigV4Config configures a SigV4TokenSource.
type SigV4Config struct {
	// Credentials signs the token request. Any provider works: static
	// keys, profiles, SSO, IMDS, or SigV4CredentialsFromEnv. It is wrapped
	// in aws.NewCredentialsCache. Required.
	Credentials aws.CredentialsProvider
	// Region is the signing region, such as "ap-southeast-2". Required.
	Region string
	// Service is the signing name; DefaultSigV4Service when empty.
	Service string
	// BaseURL is the platform base URL; the token is requested from
	// BaseURL + "/auth/token". Leave it empty when the source is given to
	// option.WithTokenSource: it then uses the client's base URL and
	// transport.
	// Plain http to a non-loopback host is refused (the response carries
	// the bearer) unless Options include option.WithInsecureBearerOverHTTP.
	BaseURL string
	// Options apply to the token requests (transport, retries, timeout...)
	// of a source with its own BaseURL.
	Options []option.RequestOption
}

// SigV4TokenSource obtains the service JWT from POST /auth/token, signed
// with AWS Signature Version 4. It signs last, after every header is final,
// over the SHA-256 of the exact body (the empty-body hash: no body is sent)
// and the current time, and signs again on every retry attempt. When the
// credentials carry a session token it is sent as X-Amz-Security-Token.
//
// The token response is not shown in the contract. Accepted: a JSON object
// with the token in accessToken, access_token or token, and its expiry in
// expiresIn or expires_in (seconds), or expiresAt or expires_at (RFC 3339 or
// epoch seconds). Without an expiry, the JWT's own exp claim is read
// (without verifying the signature); without that, the token is assumed
// valid for DefaultTokenLifetime. Any 2xx status is accepted. An unusable
// response is an *errors.TokenError with the status and a body snippet
// (never printed by its Error method).
type SigV4TokenSource struct {
	creds   aws.CredentialsProvider
	region  string
	service string
	signer  *v4.Signer
	now     func() time.Time

	mu       sync.Mutex
	baseURL  string
	opts     []option.RequestOption
	pipeline *core.Client // the client's, or built on first use
}

// DefaultTokenLifetime is assumed for a token whose response gives no expiry
// and which carries no JWT exp claim.
const DefaultTokenLifetime = 5 * time.Minute

// NewSigV4TokenSource returns a SigV4 token source. A missing credentials
// provider or region is an *errors.ValidationError naming every missing
// field; so is a BaseURL that is invalid or would carry the token over plain
// http to a host that is not loopback.
func NewSigV4TokenSource(cfg SigV4Config) (*SigV4TokenSource, error) {
	var missing []apierrors.FieldError
	if cfg.Credentials == nil {
		missing = append(missing, apierrors.FieldError{Field: "Credentials", Message: "is required"})
	} else if err := core.CheckCredentialsProvider(cfg.Credentials); err != nil {
		// A typed nil would panic in the AWS SDK's fetch goroutine.
		missing = append(missing, apierrors.FieldError{Field: "Credentials", Message: "is " + err.Error()})
	}
	if cfg.Region == "" {
		missing = append(missing, apierrors.FieldError{Field: "Region", Message: "is required (or set AWS_REGION)"})
	}
	if missing != nil {
		return nil, &apierrors.ValidationError{Operation: "client.NewSigV4TokenSource", Fields: missing}
	}
	if cfg.Service == "" {
		cfg.Service = DefaultSigV4Service
	}
	creds := cfg.Credentials
	if _, cached := creds.(*aws.CredentialsCache); !cached {
		creds = aws.NewCredentialsCache(creds)
	}
	src := &SigV4TokenSource{creds: creds, region: cfg.Region, service: cfg.Service, signer: v4.NewSigner(),
		now: time.Now, baseURL: cfg.BaseURL, opts: cfg.Options}
	if cfg.BaseURL != "" {
		// Check the base URL and options now (plain http to a host that is
		// not loopback, say), not on the first token request.
		if _, err := src.tokenPipeline(); err != nil {
			msg := strings.TrimPrefix(err.Error(), "memberplatform: ")
			field := "BaseURL"
			if strings.Contains(msg, "option.With") { // one of cfg.Options refused itself
				field = "Options"
			}
			return nil, &apierrors.ValidationError{Operation: "client.NewSigV4TokenSource",
				Fields: []apierrors.FieldError{{Field: field, Message: msg}}}
		}
	}
	return src, nil
}

// SigV4CredentialsFromEnv reads static AWS credentials from
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and (optionally)
// AWS_SESSION_TOKEN, and the region from AWS_REGION or AWS_DEFAULT_REGION.
// ok is false when either key variable is unset. For profiles, SSO or
// instance roles, pass any aws.CredentialsProvider (for example from
// github.com/aws/aws-sdk-go-v2/config) to SigV4Config instead.
func SigV4CredentialsFromEnv() (creds aws.CredentialsProvider, region string, ok bool) {
	id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" || secret == "" {
		return nil, "", false
	}
	region = os.Getenv("AWS_REGION")
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	return credentials.NewStaticCredentialsProvider(id, secret, os.Getenv("AWS_SESSION_TOKEN")), region, true
}

// The token call mints a new token but changes no state a repeat could
// corrupt: safe to retry.
var tokenOp = core.Operation{Name: "auth.Token", Method: http.MethodPost, Path: "/auth/token", Idempotent: true, Credential: true}

// emptyPayloadHash is the SHA-256 of an empty body.
var emptyPayloadHash = hex.EncodeToString(sha256.New().Sum(nil))

// bind attaches the client's backend, unless the source was configured with
// its own BaseURL.
//
// A source without its own BaseURL serves one client only: given to a
// second client it would fetch that client's tokens from the first one's
// platform, so New refuses it.
func (s *SigV4TokenSource) bind(pipeline *core.Client) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.baseURL != "":
		return nil
	case s.pipeline != nil:
		return errors.New("memberplatform: this SigV4TokenSource already serves another client; create one per client (or set SigV4Config.BaseURL)")
	}
	s.pipeline = pipeline
	return nil
}

// tokenPipeline returns the pipeline the token requests go through.
func (s *SigV4TokenSource) tokenPipeline() (*core.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pipeline != nil {
		return s.pipeline, nil
	}
	if s.baseURL == "" {
		return nil, errors.New("memberplatform: SigV4 token source has no base URL: set SigV4Config.BaseURL or give it to option.WithTokenSource")
	}
	settings := core.DefaultSettings()
	opts := append([]option.RequestOption{option.WithBaseURL(s.baseURL)}, s.opts...)
	if err := core.Apply(&settings, false, opts); err != nil {
		return nil, err
	}
	// The response carries the bearer token: the same rule as for sending
	// it applies.
	if err := core.CheckBearerTransport(&settings); err != nil {
		return nil, err
	}
	pipeline, err := core.New(settings, nil)
	if err != nil {
		return nil, err
	}
	s.pipeline = pipeline
	return pipeline, nil
}

// Token requests a fresh token. The client's cache decides when to call it.
func (s *SigV4TokenSource) Token(ctx context.Context) (Token, error) {
	pipeline, err := s.tokenPipeline()
	if err != nil {
		return Token{}, &apierrors.TokenError{Reason: "configuration", Err: err}
	}
	var body []byte
	status := 0
	call := &core.Call{Op: &tokenOp, Result: &body, Status: &status, Sign: s.sign}
	if err := core.Do(ctx, pipeline, call, []option.RequestOption(nil)); err != nil {
		var te *apierrors.TokenError
		if errors.As(err, &te) {
			return Token{}, err
		}
		var ae *apierrors.Error
		if errors.As(err, &ae) {
			status = ae.StatusCode
		}
		return Token{}, &apierrors.TokenError{StatusCode: status, Err: err}
	}
	return parseTokenResponse(status, body, s.now())
}

// sign signs req with SigV4. It runs before every attempt, after all other
// headers are final, and must be the last thing to touch the request.
func (s *SigV4TokenSource) sign(req *http.Request, body []byte) error {
	creds, err := s.creds.Retrieve(req.Context())
	if err != nil {
		return err
	}
	hash := emptyPayloadHash
	if len(body) > 0 {
		sum := sha256.Sum256(body)
		hash = hex.EncodeToString(sum[:])
	}
	return s.signer.SignHTTP(req.Context(), creds, req, hash, s.service, s.region, s.now())
}
