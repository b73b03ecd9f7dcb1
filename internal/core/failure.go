package core

import (
	"errors"
	"net/url"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// failure turns the error that ended a send without a final response into
// the SDK's typed error: a token or signing failure stays a TokenError;
// anything else is a TransportError that keeps the server's last answer.
func (state *callState) failure(err error) error {
	state.refundRetry()
	var te *apierrors.TokenError
	if errors.As(err, &te) {
		if state.lastErr == nil || te.Last != nil {
			return withOperation(err, state.call.Op.Name)
		}
		// A refresh failed between retries: keep the answer that was
		// being retried (a 429, say) reachable with errors.Is and As. The
		// error may be shared by every caller of the fetch: copy it.
		cp := *te
		cp.Last = state.lastErr
		cp.Last.Attempts = state.prior + state.attempts
		return withOperation(&cp, state.call.Op.Name)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		// Never echo a query string (it may hold caller secrets).
		if u, perr := url.Parse(uerr.URL); perr == nil {
			uerr.URL = redactURL(u)
		}
	}
	// A server can put a credential where net/http quotes it (an echoed
	// Location): the error's text must not show it.
	err = redactError(err, state.secrets())
	err = state.budgetCause(err)
	attempts := state.prior + state.attempts
	e := &apierrors.TransportError{Operation: state.call.Op.Name, Method: state.call.Op.Method, Path: state.req.path,
		Attempts: attempts, Waited: state.waited, LastStatus: state.lastStatus, Err: err}
	if state.lastErr != nil {
		// The server's last answer (a 503, say) is kept: its problem,
		// request ID and Retry-After are what an operator needs.
		e.Last = state.lastErr
		e.Last.Attempts = attempts
	}
	return e
}

// secrets returns what the current attempt's request carried that must not
// come back out in an error or a log record.
func (state *callState) secrets() []string {
	if state.sent == nil {
		return nil
	}
	return secretsOf(state.sent.Header)
}
