package core

import (
	"encoding/json"
	"testing"
)

// setMembers keeps the members it does not set as sent, replaces a member
// in its place (dropping its repeats), appends new ones in order, and
// refuses what is no single JSON object.
func TestSetMembers(t *testing.T) {
	call := &Call{Op: &Operation{Name: "test.Op"}}
	set := []JSONMember{{"b", json.RawMessage(`2`)}, {"new", json.RawMessage(`"x"`)}, {"b", json.RawMessage(`[3]`)}}
	for body, want := range map[string]string{
		`{"a":{"k":[1, 2]},"b":1,"c":true,"b":9}`: `{"a":{"k":[1, 2]},"b":[3],"c":true,"new":"x"}`,
		" \n{ }\t":      `{"b":[3],"new":"x"}`,
		`{"a\u00e9":1}`: `{"aé":1,"b":[3],"new":"x"}`,
	} {
		got, err := setMembers(call, []byte(body), set)
		if err != nil || string(got) != want {
			t.Errorf("%s: %s, %v; want %s", body, got, err, want)
		}
		if err == nil && !json.Valid(got) {
			t.Errorf("%s: %s is no valid JSON", body, got)
		}
	}
	for _, body := range []string{``, ` `, `[]`, `"s"`, `null`, `{"a":}`, `{"a":1`, `{} {}`, `{}x`} {
		if got, err := setMembers(call, []byte(body), set); err == nil {
			t.Errorf("%q: %s, want refused", body, got)
		}
	}
}
