package client

import (
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/leakcheck"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// test closes its servers and idle connections, and waits for the shared
// token fetches it starts.
func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }
