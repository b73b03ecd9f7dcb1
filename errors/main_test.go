package errors

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind (httptest
// servers, response bodies not closed, idle keep-alive connections).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
