package core

import "net/http"

// Middleware is option.Middleware: it sees one HTTP request of an attempt
// and calls next to send it.
type Middleware = func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error)

// runMiddleware sends req through chain, in order, then send.
func runMiddleware(chain []Middleware, req *http.Request, send func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	if len(chain) == 0 {
		return send(req)
	}
	return chain[0](req, func(r *http.Request) (*http.Response, error) {
		return runMiddleware(chain[1:], r, send)
	})
}
