package option

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-querystring/query"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// WithHeader adds a header, such as a correlation ID. Headers the SDK
// manages cannot be set this way: Authorization (use WithTokenSource),
// User-Agent (use WithAppInfo), Content-Type, Content-Length, Accept, Host,
// X-Retry-Attempt and the SigV4 headers X-Amz-Date, X-Amz-Security-Token
// and X-Amz-Content-Sha256. A name or value with characters HTTP does not allow (such as a
// newline) is refused.
//
// Scope: client-wide and per call (added to the client's headers). Default:
// none.
func WithHeader(key, value string) RequestOption {
	return anywhere(func(s *core.Settings) error {
		ck := http.CanonicalHeaderKey(key)
		switch ck {
		case "Authorization":
			return errors.New("memberplatform: WithHeader cannot set Authorization; use WithTokenSource")
		case "User-Agent":
			return errors.New("memberplatform: WithHeader cannot set User-Agent; use WithAppInfo")
		case "Content-Type", "Content-Length", "Accept", "Host",
			"X-Retry-Attempt", "X-Amz-Date", "X-Amz-Security-Token", "X-Amz-Content-Sha256":
			return fmt.Errorf("memberplatform: WithHeader cannot set %s: the SDK manages it", ck)
		}
		if !isToken(key) {
			return fmt.Errorf("memberplatform: WithHeader: invalid header name %q", key)
		}
		for i := 0; i < len(value); i++ {
			if c := value[i]; (c < 0x20 && c != '\t') || c == 0x7f {
				return fmt.Errorf("memberplatform: WithHeader: the value of %s has a control character at byte %d", ck, i)
			}
		}
		s.MutableHeader().Add(ck, value)
		return nil
	})
}

// isToken reports whether s is an RFC 9110 token: visible ASCII without
// separators.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// WithQuery adds the query parameters encoded from v, a struct tagged for
// github.com/google/go-querystring (`url:"name,omitempty"`), or a
// url.Values. The platform's four operations take no query parameters;
// this exists for gateways and endpoints the SDK does not wrap.
//
// Scope: client-wide and per call (added to the client's parameters).
// Default: none.
func WithQuery(v any) RequestOption {
	return anywhere(func(s *core.Settings) error {
		var vals url.Values
		switch t := v.(type) {
		case url.Values:
			vals = t
		default:
			var err error
			if vals, err = query.Values(v); err != nil {
				return fmt.Errorf("memberplatform: WithQuery: %w", err)
			}
		}
		q := s.MutableQuery()
		for k, vs := range vals {
			q[k] = append(q[k], vs...)
		}
		return nil
	})
}

// WithAppInfo appends "name/version" to the User-Agent, so the platform's
// operators can tell which service is calling. Both must be HTTP tokens:
// visible ASCII without spaces, control characters or separators such as
// '/'; version may be empty.
//
// Scope: client-wide and per call. Default: none (the User-Agent is
// "memberplatform-go/<version> (<go version>; <os>/<arch>)").
func WithAppInfo(name, version string) RequestOption {
	return anywhere(func(s *core.Settings) error {
		if !isToken(name) || (version != "" && !isToken(version)) {
			return errors.New("memberplatform: WithAppInfo: name and version must be HTTP tokens: visible ASCII without spaces, control characters or separators such as '/'")
		}
		info := name
		if version != "" {
			info += "/" + version
		}
		if s.AppInfo != "" {
			info = s.AppInfo + " " + info
		}
		s.AppInfo = info
		return nil
	})
}

// WithMaxResponseBytes bounds the size of a successful response body the
// SDK reads. A longer body fails the call, after reading at most n+1
// bytes, with an *errors.Error for which errors.Is(err,
// errors.ErrUnexpectedResponseBody) holds. Error bodies are always bounded
// to errors.MaxBodySnippet.
//
// Scope: client-wide and per call. Default: 8 MiB, far above any response
// in the contract.
func WithMaxResponseBytes(n int64) RequestOption {
	return anywhere(func(s *core.Settings) error {
		if n <= 0 {
			return errors.New("memberplatform: WithMaxResponseBytes: need a positive size")
		}
		s.MaxResponseBytes = n
		return nil
	})
}
