// Package testtls lets a test binary trust net/http/httptest's TLS
// certificate the way a service trusts a private CA, through the
// SSL_CERT_FILE environment variable crypto/x509 reads with the system's
// roots, so that tests and benchmarks reach an httptest.NewTLSServer with
// the SDK's own connection pool, default options and all.
package testtls

import (
	"encoding/pem"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// Main is a TestMain that trusts httptest's certificate
// (TrustHTTPTestCert), runs the tests through run (m.Run, or a wrapper of
// it such as leakcheck.Run), removes the certificate's file and exits with
// run's code.
func Main(m *testing.M, run func(*testing.M) int) {
	cleanup, err := TrustHTTPTestCert()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtls:", err)
		os.Exit(1)
	}
	code := run(m)
	cleanup()
	os.Exit(code)
}

// TrustHTTPTestCert adds httptest's certificate (the same for every
// httptest TLS server) to the roots crypto/x509 loads on first use, and
// returns a function that removes the file it wrote. Call it at the start
// of TestMain, before anything in the process verifies a certificate:
// crypto/x509 reads the system's roots once.
func TrustHTTPTestCert() (cleanup func(), err error) {
	srv := httptest.NewUnstartedServer(nil)
	srv.StartTLS()
	cert := srv.Certificate()
	srv.Close()
	dir, err := os.MkdirTemp("", "testtls")
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "httptest.pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o600); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := os.Setenv("SSL_CERT_FILE", file); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return func() { _ = os.RemoveAll(dir) }, nil
}
