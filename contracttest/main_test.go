package contracttest_test

import (
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/leakcheck"
)

// TestMain registers the document's string formats once, then fails the
// tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	defineFormats()
	leakcheck.VerifyTestMain(m)
}
