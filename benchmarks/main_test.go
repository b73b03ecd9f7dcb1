package benchmarks_test

import (
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/testtls"
)

// TestMain trusts httptest's TLS certificate (SSL_CERT_FILE, read with the
// system's roots), so every contender of the TLS rows, the SDK on the pool
// client.New makes, reaches an httptest.NewTLSServer as it would a server
// with a private CA.
func TestMain(m *testing.M) { testtls.Main(m, (*testing.M).Run) }
