package errors

import (
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/leakcheck"
)

// TestMain fails the run if any test leaves a goroutine behind (httptest
// servers, response bodies not closed, idle keep-alive connections).
func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }
