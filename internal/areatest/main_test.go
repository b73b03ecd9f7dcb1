package areatest_test

import (
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }
