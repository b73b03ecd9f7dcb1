package option

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/go-querystring/query"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// WithHeader adds a header, such as a correlation ID. An invalid name or
// value is refused, as are the headers the SDK manages: Authorization (use
// WithTokenSource), User-Agent (use WithAppInfo), Content-Type,
// Content-Length, Accept, Host, X-Retry-Attempt, X-Amz-Date,
// X-Amz-Security-Token and X-Amz-Content-Sha256.
//
// Scope: both (a call's add to the client's). Default: none.
func WithHeader(key, value string) RequestOption {
	return requestOption{apply: func(s *core.Settings) error {
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
	}}
}

// isToken reports whether s is an RFC 9110 token.
func isToken(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	})
}

// WithQuery adds the query parameters of v, a url.Values or a struct tagged
// for github.com/google/go-querystring (`url:"name,omitempty"`), for
// gateways and endpoints the SDK does not wrap. They come after an
// operation's own: a name in both is sent twice.
//
// Scope: both (a call's add to the client's). Default: none.
func WithQuery(v any) RequestOption {
	return requestOption{apply: func(s *core.Settings) error {
		vals, ok := v.(url.Values)
		if !ok {
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
	}}
}

// WithAppInfo appends "name/version" (HTTP tokens; version may be empty)
// to the User-Agent, so the platform's operators can tell who is calling.
//
// Scope: both. Default: none; the User-Agent is
// "memberplatform-go/<version> (<go version>; <os>/<arch>)".
func WithAppInfo(name, version string) RequestOption {
	return requestOption{apply: func(s *core.Settings) error {
		if !isToken(name) || (version != "" && !isToken(version)) {
			return errors.New("memberplatform: WithAppInfo: name and version must be HTTP tokens: visible ASCII without spaces, control characters or separators such as '/'")
		}
		info := name
		if version != "" {
			info += "/" + version
		}
		s.AppInfo = strings.TrimPrefix(s.AppInfo+" "+info, " ") // after the client's, if any
		return nil
	}}
}

// WithMaxResponseBytes bounds the 2xx body the SDK reads: a longer one
// fails the call, after n+1 bytes, with an *errors.Error matching
// errors.ErrUnexpectedResponseBody (error bodies: errors.MaxBodySnippet).
//
// Scope: both. Default: 8 MiB, far above any response in the contract.
func WithMaxResponseBytes(n int64) RequestOption {
	return checked(n <= 0, "WithMaxResponseBytes: need a positive size", func(s *core.Settings) { s.MaxResponseBytes = n })
}

// WithResponseInto stores the call's final HTTP response in *dst (nil
// without one), on success and on an API error, for its status, headers and
// request: body already read and closed, the request's Authorization and
// X-Amz-Security-Token "[REDACTED]".
//
// Scope: call. Default: none.
func WithResponseInto(dst **http.Response) RequestOption {
	if dst != nil {
		*dst = nil // also for a call refused before the pipeline
	}
	o := checked(dst == nil, "WithResponseInto: nil destination", func(s *core.Settings) { s.ResponseInto = dst })
	o.callOnly = "option.WithResponseInto applies to a single call, not to client.New"
	return o
}

// WithJSONSet sets the top-level member key of the call's JSON request body
// to value, encoded with encoding/json, adding it or replacing the member
// the SDK would send: for a field the platform accepts before the SDK knows
// it, such as WithJSONSet("department", "R&D"). Several apply in order (the
// last for a key wins). The operation's own checks of its typed params still
// run first, so a call must still set what they require. An operation
// without a JSON object body (one that sends none, or client.Execute with a
// body that is no object), an empty key, or a value encoding/json refuses,
// fails the call with an *errors.ValidationError before anything is sent.
//
// Scope: call. Default: none.
func WithJSONSet(key string, value any) RequestOption {
	o := requestOption{apply: func(s *core.Settings) error {
		if key == "" {
			return errors.New("memberplatform: WithJSONSet: empty key")
		}
		b, err := json.Marshal(value)
		if err != nil {
			return fmt.Errorf("memberplatform: WithJSONSet(%q): %w", key, err)
		}
		s.AddJSONMember(key, b)
		return nil
	}}
	o.callOnly = "option.WithJSONSet applies to a single call, not to client.New"
	return o
}

// WithIdempotent marks a call safe to repeat, so that it is retried
// whatever its method: only for requests the platform applies at most once,
// such as a POST through client.Client.Execute with an idempotency key.
//
// Scope: both. Default: the operation's rule (the SDK's operations are
// idempotent; for Execute, its method's).
func WithIdempotent() RequestOption {
	return set(func(s *core.Settings) { s.Idempotent = true })
}

// WithRetryOn adds HTTP error statuses (400 to 599) to those the client
// retries, such as 409 for a version conflict that clears by itself.
// Everything else of retrying stays: only an idempotent operation, or a call
// with WithIdempotent, is resent after an answered status (a POST through
// client.Client.Execute without it never is); the backoff, the retry
// budget, the adaptive rate limit and admission control apply, and a 429
// or 503 still waits its Retry-After, as an added status does (one whose
// Retry-After exceeds WithMaxRetryAfter is not retried); an answer saying
// the provider is not configured (errors.ErrProviderNotConfigured) stays
// final. A status outside 400 to 599 is refused. The last of WithRetryOn
// and WithoutRetryOn for a status wins.
//
// Scope: both (a call's apply over the client's). Default: 408, 429, 500,
// 502, 503 and 504 are retried (errors.Error.Temporary).
func WithRetryOn(statuses ...int) RequestOption {
	return retryStatuses("WithRetryOn", statuses, (*core.RetryStatuses).Retry)
}

// WithoutRetryOn removes HTTP error statuses (400 to 599) from those the
// client retries, such as 503 for a caller that fails over to another
// region rather than wait: such an answer fails the call at once. A status
// outside 400 to 599 is refused. The last of WithRetryOn and WithoutRetryOn
// for a status wins.
//
// Scope: both (a call's apply over the client's). Default: 408, 429, 500,
// 502, 503 and 504 are retried (errors.Error.Temporary).
func WithoutRetryOn(statuses ...int) RequestOption {
	return retryStatuses("WithoutRetryOn", statuses, (*core.RetryStatuses).DontRetry)
}

// retryStatuses is WithRetryOn's and WithoutRetryOn's option: each status
// checked, then put.
func retryStatuses(name string, statuses []int, put func(*core.RetryStatuses, int)) RequestOption {
	statuses = slices.Clone(statuses) // the caller's slice may change before the option applies
	return requestOption{apply: func(s *core.Settings) error {
		for _, st := range statuses {
			if err := core.CheckErrorStatus(name, st); err != nil {
				return err
			}
		}
		for _, st := range statuses {
			put(&s.Retry.Statuses, st)
		}
		return nil
	}}
}

// WithTimeout bounds a whole call, retries and backoff included, as the context's deadline does.
// No retry starts whose wait would end after that deadline: the call
// returns at once with the last answer's error instead (see
// WithMaxRetryAfter for a Retry-After longer than the time left).
//
// Scope: both. Default: none.
func WithTimeout(d time.Duration) RequestOption {
	return checked(d < 0, "WithTimeout: negative duration", func(s *core.Settings) { s.Timeout = d })
}

// WithAttemptTimeout bounds each HTTP attempt (headers and body), retried
// like a connection error when it times out; 0 means none.
//
// Scope: both. Default: none; the client's own pool ends a read idle for
// 30 s, and an attempt's reads 60 s after its request began however
// steadily a server trickles, so a call without deadline never hangs.
func WithAttemptTimeout(d time.Duration) RequestOption {
	return checked(d < 0, "WithAttemptTimeout: negative duration", func(s *core.Settings) { s.AttemptTimeout = d })
}

// WithMaxRetries sets how many times a retriable failure is retried, and
// twice as many after a rate-limited answer (a 429, or the contract's
// rate-limited problem); 0 disables retries. A throttle is the provider
// asking the call to come back: with the default, a provider throttling 1
// answer in 10 whatever the rate fails 1 call in 10 million rather than 1
// in 10,000. The retries past n wait the backoff of retry n, no longer. To
// bound how long a throttled call holds on, give it a deadline
// (WithTimeout) or lower WithMaxRetryAfter.
//
// Scope: both. Default: 3 (4 attempts; up to 7 when the last answer is rate-limited).
func WithMaxRetries(n int) RequestOption {
	return checked(n < 0, "WithMaxRetries: negative count", func(s *core.Settings) { s.Retry.MaxRetries = n })
}

// WithRetryBackoff sets the exponential backoff: retry n waits a uniformly
// random duration in [0, min(max, base·2ⁿ)) ("full jitter"), and a
// throttle's retries past WithMaxRetries as the last of those. base must be
// positive and max at least base (a test that wants no wait passes
// time.Millisecond for both, as sdktest's clients use 1ms to 20ms); other
// values fail client.New, or the call, with an *errors.ValidationError.
//
// Scope: both. Default: base 250ms, max 8s.
func WithRetryBackoff(base, max time.Duration) RequestOption {
	return checked(base <= 0 || max < base, "WithRetryBackoff: need 0 < base <= max", func(s *core.Settings) {
		s.Retry.BaseDelay, s.Retry.MaxDelay = base, max
	})
}

// WithMaxRetryAfter caps the wait a 429 or 503 asks for (Retry-After or
// Retry-After-Ms) and a wait for the adaptive rate limit: a longer one fails
// the call at once with the rate-limited error, its RetryAfter the asked
// wait. 0 allows none; for no cap, pass time.Duration(math.MaxInt64), with a deadline.
//
// A retry within the cap waits the asked wait plus a random 0–40% of it
// (at most 2 s more), so that calls throttled together come back spread
// out (not while the area's adaptive rate limit is engaged, nor after a
// throttle of a resource of its own: those space the attempts
// themselves); never less than asked. The extra takes at most half of what the
// deadline leaves after the asked wait.
//
// A wait within the cap that would end after the call's deadline (the
// context's, or WithTimeout's) is not started either, and the call does not
// sleep until the deadline: it returns at once with the error of the answer
// that asked, an *errors.Error whose RetryAfter is the asked wait (a 429
// matches errors.ErrRateLimited, a 503 errors.ErrServiceUnavailable), not
// context.DeadlineExceeded. errors.RetryAfterOf(err) then says when to try
// again. The area's adaptive rate limit learns from that 429 as from any.
//
// Scope: both. Default: 20s.
func WithMaxRetryAfter(d time.Duration) RequestOption {
	return checked(d < 0, "WithMaxRetryAfter: negative duration", func(s *core.Settings) { s.Retry.MaxRetryAfter = d })
}
