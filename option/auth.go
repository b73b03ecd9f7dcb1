package option

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/internal/core"
)

// WithTokenSource makes the client send "Authorization: Bearer <token>"
// from ts (a client.TokenSource, such as client.StaticToken or a
// *client.SigV4TokenSource) on every call, instead of the source chosen from
// the environment. WithTokenSource(nil) sends no Authorization header at
// all (local development); a nil pointer or func inside the interface is
// refused.
//
// Scope: client-wide; passing it to a single call fails. Default: chosen
// from the environment (see client.New).
func WithTokenSource(ts memberplatform.TokenSource) RequestOption {
	return clientWide(clientWideAuth, func(s *core.Settings) error {
		if core.NilInside(ts) {
			return core.TypedNilError("WithTokenSource", ts, "pass nil itself to send no token")
		}
		s.TokenSource, s.SigV4 = ts, nil
		return nil
	})
}

// WithSigV4 obtains the bearer token from the platform's POST /auth/token,
// signed with AWS Signature Version 4 using creds and region (see
// client.SigV4TokenSource). Each client built with it gets a token source
// of its own, so the same option may be reused for several clients.
// A nil creds, a nil pointer or func inside it, or an aws.CredentialsCache
// around one, is refused: the AWS SDK would panic on the first token
// request, in a goroutine of its own where nothing can recover it.
//
// Scope: client-wide; passing it to a single call fails. Default: chosen
// from the environment (see client.New).
func WithSigV4(creds aws.CredentialsProvider, region string) RequestOption {
	return clientWide(clientWideAuth, func(s *core.Settings) error {
		if err := core.CheckCredentialsProvider(creds); err != nil {
			return errors.New("memberplatform: option.WithSigV4: " + err.Error())
		}
		s.TokenSource, s.SigV4 = nil, &core.SigV4Settings{Credentials: creds, Region: region}
		return nil
	})
}
