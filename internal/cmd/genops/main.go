// Command genops writes sdktest's Op* constants (internal/opconst) from the
// operations the SDK declares; go generate ./sdktest runs it in sdktest's
// directory.
package main

import (
	"fmt"
	"os"

	_ "github.com/memberplatform/memberplatform-go/client" // it and the area packages it imports declare the operations
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/opconst"
)

func main() {
	src, err := opconst.Source(core.Operations())
	if err == nil {
		err = os.WriteFile(opconst.File, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genops:", err)
		os.Exit(1)
	}
}
