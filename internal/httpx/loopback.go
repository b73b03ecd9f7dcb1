package httpx

import (
	"net/netip"
	"strings"
)

// IsLoopbackHost reports whether host (without port) names the local machine:
// "localhost", a *.localhost name, or a loopback IP address. It allocates
// nothing for a lower-case host: it runs before every request that carries
// a credential over plain http.
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	host = strings.TrimPrefix(strings.TrimSuffix(host, "]"), "[")
	if strings.IndexByte(host, ':') < 0 && strings.Trim(host, "0123456789.") != "" {
		return false // a name: ParseAddr's error would allocate
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.Unmap().IsLoopback()
}
