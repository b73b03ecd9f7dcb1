package httpx

import (
	"net"
	"strings"
)

// IsLoopbackHost reports whether host (without port) names the local machine:
// "localhost", a *.localhost name, or a loopback IP address.
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.TrimPrefix(strings.TrimSuffix(host, "]"), "["))
	return ip != nil && ip.IsLoopback()
}
