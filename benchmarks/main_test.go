package benchmarks_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/testtls"
)

// TestMain trusts httptest's TLS certificate (SSL_CERT_FILE, read with the
// system's roots), so every contender of the TLS rows, the SDK on the pool
// client.New makes, reaches an httptest.NewTLSServer as it would a server
// with a private CA.
func TestMain(m *testing.M) {
	cleanup, err := testtls.TrustHTTPTestCert()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtls:", err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}
