// Package httpx holds small HTTP helpers shared by the SDK's packages:
// Retry-After, the request ID, loopback hosts and draining a body.
package httpx
