package accessmgmt_test

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/option"
)

const (
	userPath  = "/auth/access-management/users/" + userID
	permsPath = "/auth/access-management/organizations/" + orgID + "/roles/org-admin/permissions"
	fullUser  = `{"id":"` + userID + `","email":"ada@example.com","mobileNumber":"+61412345678","firstName":"Ada","lastName":"Lovelace"}`
)

func TestUpdateUserRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		params accessmgmt.UpdateUserParams
		body   string
	}{
		{"first name only", accessmgmt.UpdateUserParams{FirstName: new("Ada")}, `{"firstName":"Ada"}`},
		{"last name only", accessmgmt.UpdateUserParams{LastName: new("Lovelace")}, `{"lastName":"Lovelace"}`},
		{"email only", accessmgmt.UpdateUserParams{Email: new("ada@example.com")}, `{"email":"ada@example.com"}`},
		{"mobile only", accessmgmt.UpdateUserParams{MobileNumber: new("+61412345678")}, `{"mobileNumber":"+61412345678"}`},
		{
			"every field",
			accessmgmt.UpdateUserParams{MobileNumber: new("+61412345678"), Email: new("ada@example.com"), FirstName: new("Ada"), LastName: new("Lovelace")},
			`{"mobileNumber":"+61412345678","email":"ada@example.com","firstName":"Ada","lastName":"Lovelace"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPut, userPath, areatest.JSON(http.StatusOK, fullUser))
			u, err := m.Client().AccessMgmt.UpdateUser(t.Context(), userID, tt.params)
			if err != nil {
				t.Fatalf("UpdateUser: %v", err)
			}
			r := m.Only()
			areatest.CheckRequest(t, r, http.MethodPut, userPath, tt.body, "Bearer "+token)
			want := accessmgmt.ProviderUser{ID: userID, Email: "ada@example.com", MobileNumber: "+61412345678", FirstName: "Ada", LastName: "Lovelace"}
			if string(u.RawJSON()) != fullUser {
				t.Errorf("RawJSON() = %s, want the body answered", u.RawJSON())
			}
			if u.Raw = ""; *u != want {
				t.Errorf("user = %+v, want %+v", *u, want)
			}
		})
	}
}

func TestUpdateUserDecodesResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want accessmgmt.ProviderUser
	}{
		{
			// The server's values win over what was sent.
			"every field",
			`{"id":"user_other","email":"verified@example.com","mobileNumber":"+14155550100","firstName":"Augusta","lastName":"King","extra":{"ignored":true}}`,
			accessmgmt.ProviderUser{ID: "user_other", Email: "verified@example.com", MobileNumber: "+14155550100", FirstName: "Augusta", LastName: "King"},
		},
		{
			"optional fields absent",
			`{"id":"user_other","email":"verified@example.com"}`,
			accessmgmt.ProviderUser{ID: "user_other", Email: "verified@example.com"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPut, userPath, areatest.JSON(http.StatusOK, tt.body))
			u, err := m.Client().AccessMgmt.UpdateUser(t.Context(), userID, accessmgmt.UpdateUserParams{FirstName: new("Ada")})
			if err != nil {
				t.Fatalf("UpdateUser: %v", err)
			}
			if string(u.RawJSON()) != tt.body {
				t.Errorf("RawJSON() = %s, want the body answered", u.RawJSON())
			}
			if u.Raw = ""; *u != tt.want {
				t.Errorf("user = %+v, want %+v", *u, tt.want)
			}
		})
	}
}

func TestUpdateUserEmptySuccessBody(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusOK, http.StatusAccepted, http.StatusNoContent} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPut, userPath, areatest.JSON(status, ""))
			params := accessmgmt.UpdateUserParams{Email: new("ada@example.com"), FirstName: new("Ada")}
			u, err := m.Client().AccessMgmt.UpdateUser(t.Context(), userID, params)
			if err != nil {
				t.Fatalf("UpdateUser: %v", err)
			}
			want := accessmgmt.ProviderUser{ID: userID, Email: "ada@example.com", FirstName: "Ada"}
			if *u != want { // no body: RawJSON() nil, a user built by hand
				t.Errorf("user = %+v, want %+v", *u, want)
			}
		})
	}
}

func TestUpdateUserPathEscaping(t *testing.T) {
	t.Parallel()
	const prefix = "/auth/access-management/users/"
	tests := []struct{ id, escaped string }{
		{userID, userID},
		{"a/b", "a%2Fb"},
		{"../../x", "..%2F..%2Fx"},
		{"../admin", "..%2Fadmin"},
		{"...", "..."},
		{"a b", "a%20b"},
		{"a?b#c", "a%3Fb%23c"},
		{"a;b,c", "a%3Bb%2Cc"},
		{"100%", "100%25"},
		{"auth0|5f7c8ec7c33c6c004bbafe82", "auth0%7C5f7c8ec7c33c6c004bbafe82"},
		{"ü", "%C3%BC"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPut, prefix+tt.escaped, areatest.JSON(http.StatusOK, fullUser))
			if _, err := m.Client().AccessMgmt.UpdateUser(t.Context(), tt.id, accessmgmt.UpdateUserParams{FirstName: new("Ada")}); err != nil {
				t.Fatalf("UpdateUser: %v", err)
			}
			r := m.Only()
			got := r.URL.EscapedPath()
			if got != prefix+tt.escaped {
				t.Fatalf("escaped path = %q, want %q", got, prefix+tt.escaped)
			}
			// The ID stays one segment and round-trips.
			seg := strings.TrimPrefix(got, prefix)
			if strings.Contains(seg, "/") {
				t.Errorf("segment %q contains '/'", seg)
			}
			if dec, err := url.PathUnescape(seg); err != nil || dec != tt.id {
				t.Errorf("segment %q unescapes to %q, %v; want %q", seg, dec, err, tt.id)
			}
			if r.URL.Host != "api.example.com" {
				t.Errorf("host = %q", r.URL.Host)
			}
		})
	}
}

func TestUpdateUserValidation(t *testing.T) {
	t.Parallel()
	one := accessmgmt.UpdateUserParams{FirstName: new("Ada")}
	tests := []struct {
		name   string
		id     string
		params accessmgmt.UpdateUserParams
		fields []string // nil: valid
	}{
		// userId: any non-empty opaque format.
		{"opaque user id", userID, one, nil},
		{"auth0 user id", "auth0|5f7c8ec7c33c6c004bbafe82", one, nil},
		{"uuid user id", "123e4567-e89b-12d3-a456-426614174000", one, nil},
		{"numeric user id", "42", one, nil},
		{"empty user id", "", one, []string{"userId"}},
		{"blank user id", "  \t", one, []string{"userId"}},
		{"dot user id", ".", one, []string{"userId"}},
		{"dot-dot user id", "..", one, []string{"userId"}},

		// At least one field.
		{"no fields", userID, accessmgmt.UpdateUserParams{}, []string{"params"}},
		{"no fields and no id", "", accessmgmt.UpdateUserParams{}, []string{"userId", "params"}},

		// mobileNumber: E.164.
		{"mobile AU", userID, accessmgmt.UpdateUserParams{MobileNumber: new("+61412345678")}, nil},
		{"mobile shortest", userID, accessmgmt.UpdateUserParams{MobileNumber: new("+12")}, nil},
		{"mobile 15 digits", userID, accessmgmt.UpdateUserParams{MobileNumber: new("+123456789012345")}, nil},
		{"mobile 16 digits", userID, accessmgmt.UpdateUserParams{MobileNumber: new("+1234567890123456")}, []string{"mobileNumber"}},
		{"mobile no plus", userID, accessmgmt.UpdateUserParams{MobileNumber: new("61412345678")}, []string{"mobileNumber"}},
		{"mobile national", userID, accessmgmt.UpdateUserParams{MobileNumber: new("0412345678")}, []string{"mobileNumber"}},
		{"mobile leading zero", userID, accessmgmt.UpdateUserParams{MobileNumber: new("+0412345678")}, []string{"mobileNumber"}},
		{"mobile one digit", userID, accessmgmt.UpdateUserParams{MobileNumber: new("+1")}, []string{"mobileNumber"}},
		{"mobile spaces", userID, accessmgmt.UpdateUserParams{MobileNumber: new("+61 412 345 678")}, []string{"mobileNumber"}},
		{"mobile dashes", userID, accessmgmt.UpdateUserParams{MobileNumber: new("+1-415-555-0100")}, []string{"mobileNumber"}},
		{"mobile empty", userID, accessmgmt.UpdateUserParams{MobileNumber: new("")}, []string{"mobileNumber"}},

		// email: a bare address.
		{"email simple", userID, accessmgmt.UpdateUserParams{Email: new("ada@example.com")}, nil},
		{"email plus and subdomain", userID, accessmgmt.UpdateUserParams{Email: new("ada.lovelace+sdk@mail.example.co.uk")}, nil},
		{"email display name", userID, accessmgmt.UpdateUserParams{Email: new("Ada <ada@example.com>")}, []string{"email"}},
		{"email angle brackets", userID, accessmgmt.UpdateUserParams{Email: new("<ada@example.com>")}, []string{"email"}},
		{"email no at", userID, accessmgmt.UpdateUserParams{Email: new("ada.example.com")}, []string{"email"}},
		{"email no domain", userID, accessmgmt.UpdateUserParams{Email: new("ada@")}, []string{"email"}},
		{"email trailing space", userID, accessmgmt.UpdateUserParams{Email: new("ada@example.com ")}, []string{"email"}},
		{"email two addresses", userID, accessmgmt.UpdateUserParams{Email: new("ada@example.com, bob@example.com")}, []string{"email"}},
		{"email empty", userID, accessmgmt.UpdateUserParams{Email: new("")}, []string{"email"}},

		// Names: set means non-blank.
		{"names", userID, accessmgmt.UpdateUserParams{FirstName: new("Ada"), LastName: new("Lovelace")}, nil},
		{"unicode name", userID, accessmgmt.UpdateUserParams{FirstName: new("Zoë")}, nil},
		{"empty first name", userID, accessmgmt.UpdateUserParams{FirstName: new("")}, []string{"firstName"}},
		{"blank last name", userID, accessmgmt.UpdateUserParams{LastName: new(" ")}, []string{"lastName"}},

		// Every offending field is reported, in order.
		{
			"everything wrong", "",
			accessmgmt.UpdateUserParams{MobileNumber: new("0412"), Email: new("nope"), FirstName: new(""), LastName: new("")},
			[]string{"userId", "mobileNumber", "email", "firstName", "lastName"},
		},
		{
			"valid and invalid mixed", userID,
			accessmgmt.UpdateUserParams{MobileNumber: new("0412"), Email: new("ada@example.com"), FirstName: new("Ada"), LastName: new("")},
			[]string{"mobileNumber", "lastName"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPut, `=~^`+baseURL+`/auth/access-management/users/`, areatest.JSON(http.StatusOK, fullUser))
			u, err := m.Client().AccessMgmt.UpdateUser(t.Context(), tt.id, tt.params)
			m.CheckValidation("accessmgmt.UpdateUser", err, u == nil, tt.fields)
		})
	}
}

func TestReplaceRolePermissionsRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		perms []string
		body  string
	}{
		{"nil clears", nil, `{"permissions":[]}`},
		{"empty clears", []string{}, `{"permissions":[]}`},
		{"one", []string{"users:read"}, `{"permissions":["users:read"]}`},
		{"order kept", []string{"users:write", "billing.*", "*", "a-b_c.d:e"}, `{"permissions":["users:write","billing.*","*","a-b_c.d:e"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPut, permsPath, areatest.JSON(http.StatusNoContent, ""))
			if err := m.Client().AccessMgmt.ReplaceRolePermissions(t.Context(), orgID, "org-admin", tt.perms); err != nil {
				t.Fatalf("ReplaceRolePermissions: %v", err)
			}
			r := m.Only()
			areatest.CheckRequest(t, r, http.MethodPut, permsPath, tt.body, "Bearer "+token)
		})
	}
}

func TestReplaceRolePermissionsDoesNotModifyInput(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	m.On(http.MethodPut, permsPath, areatest.JSON(http.StatusNoContent, ""))
	perms := []string{"users:read", "users:write"}
	if err := m.Client().AccessMgmt.ReplaceRolePermissions(t.Context(), orgID, "org-admin", perms); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(perms, []string{"users:read", "users:write"}) {
		t.Errorf("permissions modified: %q", perms)
	}
}

func TestReplaceRolePermissionsSuccessStatuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		ctype  string
		body   string
	}{
		{"200 empty", http.StatusOK, "", ""},
		{"200 with permissions", http.StatusOK, "application/json", `{"permissions":["users:read"]}`},
		{"200 with role record", http.StatusOK, "application/json", `{"slug":"org-admin","permissions":[]}`},
		{"200 non-JSON body", http.StatusOK, "text/plain", "OK"},
		{"201 with body", http.StatusCreated, "application/json", `{}`},
		{"202 empty", http.StatusAccepted, "", ""},
		{"204 empty", http.StatusNoContent, "", ""},
		{"204 with body", http.StatusNoContent, "application/json", `{"permissions":["users:read"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPut, permsPath, areatest.Respond(tt.status, tt.ctype, tt.body))
			if err := m.Client().AccessMgmt.ReplaceRolePermissions(t.Context(), orgID, "org-admin", []string{"users:read"}); err != nil {
				t.Fatalf("ReplaceRolePermissions: %v", err)
			}
			if m.Calls() != 1 {
				t.Errorf("requests = %d, want 1", m.Calls())
			}
		})
	}
}

func TestReplaceRolePermissionsPathEscaping(t *testing.T) {
	t.Parallel()
	tests := []struct{ org, slug, escaped string }{
		{orgID, "org-admin", "/auth/access-management/organizations/" + orgID + "/roles/org-admin/permissions"},
		{"a/b", "org-admin", "/auth/access-management/organizations/a%2Fb/roles/org-admin/permissions"},
		{"../../x", "org-admin", "/auth/access-management/organizations/..%2F..%2Fx/roles/org-admin/permissions"},
		{"tenant 1?x=y", "org-a_b-9", "/auth/access-management/organizations/tenant%201%3Fx=y/roles/org-a_b-9/permissions"},
	}
	for _, tt := range tests {
		t.Run(tt.org, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPut, tt.escaped, areatest.JSON(http.StatusNoContent, ""))
			if err := m.Client().AccessMgmt.ReplaceRolePermissions(t.Context(), tt.org, tt.slug, nil); err != nil {
				t.Fatalf("ReplaceRolePermissions: %v", err)
			}
			r := m.Only()
			areatest.CheckRequest(t, r, http.MethodPut, tt.escaped, `{"permissions":[]}`, "Bearer "+token)
		})
	}
}

func TestReplaceRolePermissionsValidation(t *testing.T) {
	t.Parallel()
	ok := []string{"users:read"}
	tests := []struct {
		name   string
		org    string
		slug   string
		perms  []string
		fields []string // nil: valid
	}{
		// organizationId: any non-empty opaque format.
		{"workos org id", orgID, "org-admin", ok, nil},
		{"uuid org id", "123e4567-e89b-12d3-a456-426614174000", "org-admin", ok, nil},
		{"mixed-case org id", "Tenant-ABC.123", "org-admin", ok, nil},
		{"empty org id", "", "org-admin", ok, []string{"organizationId"}},
		{"blank org id", " ", "org-admin", ok, []string{"organizationId"}},
		{"dot org id", ".", "org-admin", ok, []string{"organizationId"}},
		{"dot-dot org id", "..", "org-admin", ok, []string{"organizationId"}},

		// slug: ^org-[a-z0-9_-]+$.
		{"slug digits underscore hyphen", orgID, "org-a_b-9", ok, nil},
		{"slug org-org", orgID, "org-org-", ok, nil},
		{"slug single char", orgID, "org-x", ok, nil},
		{"slug empty", orgID, "", ok, []string{"slug"}},
		{"slug prefix only", orgID, "org-", ok, []string{"slug"}},
		{"slug no prefix", orgID, "admin", ok, []string{"slug"}},
		{"slug wrong prefix", orgID, "organization-admin", ok, []string{"slug"}},
		{"slug upper prefix", orgID, "ORG-admin", ok, []string{"slug"}},
		{"slug upper", orgID, "org-Admin", ok, []string{"slug"}},
		{"slug colon", orgID, "org-users:read", ok, []string{"slug"}},
		{"slug dot", orgID, "org-a.b", ok, []string{"slug"}},
		{"slug slash", orgID, "org-a/b", ok, []string{"slug"}},
		{"slug space", orgID, "org-a b", ok, []string{"slug"}},
		{"slug trailing newline", orgID, "org-admin\n", ok, []string{"slug"}},
		{"slug leading space", orgID, " org-admin", ok, []string{"slug"}},

		// permissions: every slug ^[a-z0-9:._*-]+$.
		{"perms nil", orgID, "org-admin", nil, nil},
		{"perms empty", orgID, "org-admin", []string{}, nil},
		{"perms every allowed char", orgID, "org-admin", []string{"abcxyz0189:._*-", "*", "users:read", "billing.invoices.*"}, nil},
		{"perm upper", orgID, "org-admin", []string{"Users:read"}, []string{"permissions[0]"}},
		{"perm empty", orgID, "org-admin", []string{""}, []string{"permissions[0]"}},
		{"perm space", orgID, "org-admin", []string{"users read"}, []string{"permissions[0]"}},
		{"perm slash", orgID, "org-admin", []string{"users/read"}, []string{"permissions[0]"}},
		{"perm plus", orgID, "org-admin", []string{"users+read"}, []string{"permissions[0]"}},
		{"perm unicode", orgID, "org-admin", []string{"usérs"}, []string{"permissions[0]"}},
		{
			"every bad permission listed", orgID, "org-admin",
			[]string{"users:read", "BAD", "ok", "has space", "", "fine.*"},
			[]string{"permissions[1]", "permissions[3]", "permissions[4]"},
		},
		{
			"everything wrong", "", "admin",
			[]string{"X", "y", "Z"},
			[]string{"organizationId", "slug", "permissions[0]", "permissions[2]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPut, `=~^`+baseURL+`/auth/access-management/organizations/`, areatest.JSON(http.StatusNoContent, ""))
			err := m.Client().AccessMgmt.ReplaceRolePermissions(t.Context(), tt.org, tt.slug, tt.perms)
			m.CheckValidation("accessmgmt.ReplaceRolePermissions", err, tt.fields != nil, tt.fields) // the operation returns no result to check
		})
	}
}

func TestProblemFieldErrors(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	m.On(http.MethodPut, userPath, areatest.Problem(http.StatusBadRequest, `{
		"type":"https://errors.example.com/validation","title":"BAD_REQUEST","status":400,
		"detail":"Request validation failed","instance":"/auth/access-management/users/x",
		"serviceCode":"40000002","serviceMeta":{"provider":"workos","attempt":2},
		"serviceErrors":[{"detail":"must be E.164","pointer":"/mobileNumber"},{"detail":"taken","pointer":"/email"}]}`))
	_, err := m.Client().AccessMgmt.UpdateUser(t.Context(), userID, accessmgmt.UpdateUserParams{Email: new("ada@example.com")})
	e, ok := errors.AsType[*apierrors.Error](err)
	if !ok || e.Problem == nil {
		t.Fatalf("err = %v, want an *errors.Error with a problem", err)
	}
	p := e.Problem
	if p.Type != "https://errors.example.com/validation" || p.Title != "BAD_REQUEST" || p.Status != 400 ||
		p.Detail != "Request validation failed" || p.Instance != "/auth/access-management/users/x" || p.ServiceCode != "40000002" {
		t.Errorf("problem = %+v", p)
	}
	if p.ServiceMeta["provider"] != "workos" || p.ServiceMeta["attempt"] != float64(2) {
		t.Errorf("serviceMeta = %v", p.ServiceMeta)
	}
	want := []apierrors.FieldError{
		{Field: "mobileNumber", Pointer: "/mobileNumber", Message: "must be E.164"},
		{Field: "email", Pointer: "/email", Message: "taken"},
	}
	if got := e.FieldErrors(); !slices.Equal(got, want) {
		t.Errorf("FieldErrors = %+v, want %+v", got, want)
	}
}

func TestProviderNotConfiguredIsNotRetried(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	m.On(http.MethodPut, userPath, areatest.Problem(http.StatusServiceUnavailable,
		`{"type":"about:blank","title":"Provider not configured","status":503,"serviceCode":"50300002","detail":"The access-management provider is not configured for this environment"}`))
	c := m.Client(option.WithMaxRetries(3), option.WithRetryBackoff(time.Millisecond, time.Millisecond))
	_, err := c.AccessMgmt.UpdateUser(t.Context(), userID, accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	if !errors.Is(err, apierrors.ErrProviderNotConfigured) {
		t.Errorf("err = %v, want ErrProviderNotConfigured", err)
	}
	if e, ok := errors.AsType[*apierrors.Error](err); !ok || e.Problem == nil || e.Problem.ServiceCode != "50300002" {
		t.Errorf("err = %v, want an *errors.Error with serviceCode 50300002", err)
	}
	if m.Calls() != 1 {
		t.Errorf("requests = %d, want 1", m.Calls())
	}
}

func TestPerCallAuthorizationHeaderRefused(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	u, err := m.Client().AccessMgmt.UpdateUser(t.Context(), userID, accessmgmt.UpdateUserParams{FirstName: new("Ada")},
		option.WithHeader("Authorization", "Bearer stolen"))
	m.CheckValidation("accessmgmt.UpdateUser", err, u == nil, []string{"options"})
}
