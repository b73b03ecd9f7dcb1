package benchmarks

import (
	memberplatform "github.com/memberplatform/memberplatform-go"
	_ "github.com/memberplatform/memberplatform-go/client" // it and the area packages it imports declare the operations
	"github.com/memberplatform/memberplatform-go/internal/core"
)

// Operations are the operations the benchmarks compare, a row each, in the
// order the SDK declares them: every operation but the token call, which
// the SDK makes only to fill its token cache.
func Operations() []*core.Operation {
	var ops []*core.Operation
	for _, op := range core.Operations() {
		if op.Area != memberplatform.AreaToken {
			ops = append(ops, op)
		}
	}
	return ops
}
