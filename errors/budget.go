package errors

import stderrors "errors"

// ErrRetryBudgetExhausted matches, with errors.Is, a call that was not
// retried because the client's retry budget was empty (see
// option.WithRetryBudget). The call made its attempt, the outcome was one
// the retry policy would have retried, and the budget had too few tokens
// left for it.
//
// It is not a separate error type: the error is the one the last attempt
// produced, with the budget recorded as its cause, so everything else about
// it holds as before:
//
//   - a final error response is an *Error (status, problem, request ID,
//     RetryAfter); its Err field is a cause that matches
//     ErrRetryBudgetExhausted and says so in Error().
//   - a connection failure or timeout is a *TransportError; its Err wraps
//     the original cause (a *url.Error, a timeout...), which stays
//     reachable with errors.As and errors.Is, and also matches
//     ErrRetryBudgetExhausted.
//   - a failed token call reaches the operation inside a *TokenError, whose
//     chain leads to either of the above.
//
// It is not a kind of HTTP failure: the same error still matches its own
// kind (ErrServiceUnavailable, ErrRateLimited, ErrTransport...).
var ErrRetryBudgetExhausted = stderrors.New("memberplatform: retry budget exhausted")
