package core

import (
	"bytes"
	"context"
	"net/http"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// callState is one send and what its attempts found.
type callState struct {
	client *Client
	s      *Settings
	scope  *Scope // the operation's area's load control, in s
	// What the attempts read of the Call, copied so that the Call and its
	// path parameters stay on the caller's stack.
	op       *Operation
	result   any
	sign     func(req *http.Request, body []byte) error
	req      request
	bodyRead bytes.Reader // reads req.body; go-retryablehttp copies it per attempt
	tok      *CachedToken // nil when the call carries no bearer token
	ctx      context.Context
	prior    int // attempts before this send (a resend after a 401)
	attempts int // attempts of this send
	stop     Decision
	wait     time.Duration // chosen by checkRetry, waited by prepareRetry
	waited   time.Duration
	sent     *http.Request // the current attempt, as authorized
	// authz holds the first attempt's Authorization value, so that a
	// cached token costs no allocation and a middleware editing it in
	// place changes only this send.
	authz [1]string

	resp       *http.Response // the final response; its body is in body
	lastStatus int
	lastErr    *apierrors.Error // the last error response, decoded once
	body       []byte
	refused    error // why a 2xx body will not be used (too long, foreign credential)

	// The state other files keep, each changed only by its own file.
	budgetState    // retry.go
	paceState      // scope.go
	admissionState // admission.go
	logState       // log.go
}

type callStateKey struct{}

func stateOf(ctx context.Context) *callState {
	state, _ := ctx.Value(callStateKey{}).(*callState)
	return state
}
