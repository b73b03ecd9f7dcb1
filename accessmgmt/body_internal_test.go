package accessmgmt

import (
	"encoding/json"
	"testing"
)

// The hand-written permissions body is json.Marshal's, byte for byte, for
// none, one and many valid slugs (every character the pattern allows), and
// an empty or nil list is [], never null.
func TestRolePermissionsBodyIsJSONMarshals(t *testing.T) {
	for _, permissions := range [][]string{nil, {}, {"users:read"}, {"a", "b.c", "x_y-z:*", "0123456789:abcdefghijklmnopqrstuvwxyz._*-"}} {
		want := []string{}
		if permissions != nil {
			want = permissions
		}
		marshalled, err := json.Marshal(struct {
			Permissions []string `json:"permissions"`
		}{want})
		if err != nil {
			t.Fatal(err)
		}
		if got := rolePermissionsBody(permissions); string(got) != string(marshalled) {
			t.Errorf("body of %q = %s, want %s", permissions, got, marshalled)
		}
	}
}
