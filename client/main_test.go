package client

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// test closes its servers and idle connections, and waits for the shared
// token fetches it starts.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
