package core

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/memberplatform/memberplatform-go/internal/jsonscan"
)

// JSONMember is a top-level member of the JSON request body that
// option.WithJSONSet sets: Value is its JSON encoding.
type JSONMember struct {
	Key   string
	Value json.RawMessage
}

// setMembers returns body, a JSON object, with set's members added or
// replaced: a member already there keeps its place, repeats of it are
// dropped, and the new ones follow the others, in the order their keys were
// first set (the last value of a key wins). Any other body is refused before sending: WithJSONSet
// is for an operation whose request body is a JSON object.
func setMembers(call *Call, body []byte, set []JSONMember) ([]byte, error) {
	refuse := func(what string) error {
		return invalidCall(call, "options", "WithJSONSet needs a JSON object request body, and "+call.Op.Name+" sends "+what)
	}
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return nil, refuse("none")
	case trimmed[0] != '{':
		return nil, refuse("another JSON value")
	}
	last := map[string]int{} // key -> its last index in set
	for i, m := range set {
		last[m.Key] = i
	}
	out := make([]byte, 0, len(trimmed)+64)
	out = append(out, '{')
	written := make([]bool, len(set))
	member := func(name []byte, value []byte) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		q, _ := json.Marshal(string(name)) // a string always encodes
		out = append(append(append(out, q...), ':'), value...)
	}
	end := jsonscan.Members(trimmed, 0, func(name, value []byte) {
		i, ok := last[string(name)]
		switch {
		case !ok:
			member(name, value)
		case !written[i]:
			member(name, set[i].Value)
			written[i] = true
		}
	})
	if end < 0 || len(bytes.TrimSpace(trimmed[end:])) > 0 {
		return nil, refuse("a body that is no single JSON object")
	}
	for _, m := range set { // in the order each key was first set, with its last value
		if i := last[m.Key]; !written[i] {
			member([]byte(m.Key), set[i].Value)
			written[i] = true
		}
	}
	return append(out, '}'), nil
}

// AddJSONMember records option.WithJSONSet's member in the call's settings.
func (s *Settings) AddJSONMember(key string, value json.RawMessage) {
	s.JSONSet = append(slices.Clip(s.JSONSet), JSONMember{Key: key, Value: value})
}
