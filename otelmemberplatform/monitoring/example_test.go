package monitoring_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring"
)

// A program that provisions Prometheus and Grafana writes the rule file
// where prometheus.yml's rule_files names it, and the dashboard where
// Grafana's dashboard provider reads.
func Example() {
	dir, err := os.MkdirTemp("", "provisioning")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for name, data := range map[string][]byte{
		"memberplatform.rules.yml": monitoring.Rules(),
		"memberplatform-go.json":   monitoring.Dashboard(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		fmt.Println(e.Name())
	}
	// Output:
	// memberplatform-go.json
	// memberplatform.rules.yml
}
