package monitoring

import (
	"bytes"
	_ "embed" // the rule and dashboard files
)

var (
	//go:embed prometheus/memberplatform.rules.yml
	rules []byte
	//go:embed prometheus/memberplatform.rules_test.yml
	rulesTests []byte
	//go:embed grafana/memberplatform-go.json
	dashboard []byte
)

// Rules returns the Prometheus rule file (prometheus/memberplatform.rules.yml):
// the recording rules and the alerts, in the format of Prometheus'
// rule_files.
func Rules() []byte { return bytes.Clone(rules) }

// RulesTests returns promtool's unit tests of the rules
// (prometheus/memberplatform.rules_test.yml), which name the rule file as
// memberplatform.rules.yml in the same directory:
//
//	promtool test rules memberplatform.rules_test.yml
func RulesTests() []byte { return bytes.Clone(rulesTests) }

// Dashboard returns the Grafana dashboard (grafana/memberplatform-go.json),
// for import or provisioning. It asks for a Prometheus data source and
// reads the recording rules of Rules, which must be loaded.
func Dashboard() []byte { return bytes.Clone(dashboard) }
