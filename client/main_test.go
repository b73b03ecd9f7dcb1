package client

import (
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/leakcheck"
	"github.com/memberplatform/memberplatform-go/internal/testtls"
)

// TestMain trusts httptest's TLS certificate (SSL_CERT_FILE, as a service
// trusts a private CA), so the pool tests reach a TLS server with the
// client's own pool, and fails the package's tests if any goroutine
// outlives them: every test closes its servers and idle connections, and
// waits for the shared token fetches it starts.
func TestMain(m *testing.M) { testtls.Main(m, leakcheck.Run) }
