package main

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/exampletest"
	"github.com/memberplatform/memberplatform-go/internal/leakcheck"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

const wantFake = `MEMBERPLATFORM_BASE_URL is not set: running against an in-process sdktest fake platform.
UpdateUser: user_01HZX3QK4B8P is now Ada Lovelace <ada@example.com>, mobile +61412345678
ReplaceRolePermissions: role org-support of org_01HZX3R7Y2NM now has exactly [members:read members:write reports:export]
UpdatePaymentMethod: visa ending 4242, expires 04/2031, primary=true, updated 2025-06-01T09:30:00Z
UpsertMemberAddress: member 3d6f9a2c-7b1e-4f5a-8c3d-9e2b4a6c8d0f lives at 1 George Street, Level 2, Sydney NSW 2000 (tenant tenant_sdktest)
Validation error (nothing was sent), errors.Is(err, apierrors.ErrInvalidInput) = true:
   - mobileNumber: must be an E.164 number such as +61412345678
   - email: must be an email address such as ada@example.com
API error: status 404, errors.Is(err, apierrors.ErrNotFound) = true
   problem: title "Not Found", serviceCode 40400001, detail "user user_does_not_exist not found"
   err.Error(): <checked separately>
`

func TestRunWithoutEnvironment(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), &out, func(string) string { return "" }); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	// The wording of err.Error() belongs to package errors: check only
	// that the line names the operation, the status and the detail.
	got := out.String()
	const marker = "   err.Error(): "
	i := strings.Index(got, marker)
	if i < 0 {
		t.Fatalf("no err.Error() line in:\n%s", got)
	}
	errLine := strings.TrimSuffix(got[i+len(marker):], "\n")
	for _, want := range []string{"accessmgmt.UpdateUser", "404", "user user_does_not_exist not found"} {
		if !strings.Contains(errLine, want) {
			t.Errorf("err.Error() line %q lacks %q", errLine, want)
		}
	}
	got = got[:i] + marker + "<checked separately>\n"
	if got != wantFake {
		t.Errorf("output:\n%s\nwant:\n%s", got, wantFake)
	}
}

// TestRunAgainstPlatform runs the "real platform" path (client.New from the
// environment) against an sdktest server standing in for the platform.
func TestRunAgainstPlatform(t *testing.T) {
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "user_real", Email: "real@example.com"})
	srv.AddRole("org_real", "org-ops")
	t.Setenv("MEMBERPLATFORM_BASE_URL", srv.URL)
	t.Setenv("MEMBERPLATFORM_TOKEN", srv.IssueToken())
	t.Setenv("MEMBERPLATFORM_USER_ID", "user_real")
	t.Setenv("MEMBERPLATFORM_ORG_ID", "org_real")
	t.Setenv("MEMBERPLATFORM_ROLE_SLUG", "org-ops")
	t.Setenv("MEMBERPLATFORM_PAYMENT_METHOD_ID", "")
	t.Setenv("MEMBERPLATFORM_MEMBER_ID", "")

	var out bytes.Buffer
	if err := run(t.Context(), &out, os.Getenv); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"Running against " + srv.URL,
		"UpdateUser: user_real is now Ada Lovelace <real@example.com>",
		"ReplaceRolePermissions: role org-ops of org_real",
		"UpdatePaymentMethod: skipped (set MEMBERPLATFORM_PAYMENT_METHOD_ID)",
		"UpsertMemberAddress: skipped (set MEMBERPLATFORM_MEMBER_ID)",
		"API error: status 404",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if got, _ := srv.RolePermissions("org_real", "org-ops"); len(got) != 3 {
		t.Errorf("role permissions on the platform = %v", got)
	}
}

func TestRunFailsOnUnexpectedError(t *testing.T) {
	srv := sdktest.NewServer(t)
	t.Setenv("MEMBERPLATFORM_BASE_URL", srv.URL)
	t.Setenv("MEMBERPLATFORM_TOKEN", srv.IssueToken())
	t.Setenv("MEMBERPLATFORM_USER_ID", "user_missing")
	var out bytes.Buffer
	err := run(t.Context(), &out, os.Getenv)
	if err == nil || !strings.Contains(err.Error(), "UpdateUser") {
		t.Errorf("err = %v, want the UpdateUser failure", err)
	}
}

// Output that cannot be written fails the program instead of vanishing.
func TestRunReportsAWriteError(t *testing.T) {
	if err := run(t.Context(), exampletest.FailingWriter{}, func(string) string { return "" }); !errors.Is(err, exampletest.ErrWrite) {
		t.Fatalf("run = %v, want the write error", err)
	}
}

// TestRunSendsEveryOperation runs the "real platform" path, with every
// identifier set and SigV4 credentials, against an sdktest server: the
// quickstart must send every operation the SDK declares, the token call
// included.
func TestRunSendsEveryOperation(t *testing.T) {
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "user_real", Email: "real@example.com"})
	srv.AddRole("org_real", "org-ops")
	pm := srv.AddPaymentMethod(sdktest.PaymentMethod{})
	member := srv.AddMember("")
	creds, err := srv.Credentials().Retrieve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"MEMBERPLATFORM_BASE_URL": srv.URL, "MEMBERPLATFORM_TOKEN": "",
		"AWS_ACCESS_KEY_ID": creds.AccessKeyID, "AWS_SECRET_ACCESS_KEY": creds.SecretAccessKey, "AWS_SESSION_TOKEN": "", "AWS_REGION": sdktest.DefaultRegion,
		"MEMBERPLATFORM_USER_ID": "user_real", "MEMBERPLATFORM_ORG_ID": "org_real", "MEMBERPLATFORM_ROLE_SLUG": "org-ops",
		"MEMBERPLATFORM_PAYMENT_METHOD_ID": pm.ID, "MEMBERPLATFORM_MEMBER_ID": member,
	} {
		t.Setenv(k, v)
	}
	var out bytes.Buffer
	if err := run(t.Context(), &out, os.Getenv); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	sent := map[string]bool{}
	for _, r := range srv.Requests() {
		sent[r.Operation] = true
	}
	for _, op := range core.Operations() {
		if !sent[op.Name] {
			t.Errorf("the quickstart never sends %s: add it to demoOperations in examples/quickstart/main.go "+
				"(its line, led by its name, goes into wantFake in main_test.go)", op.Name)
		}
	}
	if strings.Contains(out.String(), "skipped") {
		t.Errorf("an operation was skipped with every identifier set:\n%s", out.String())
	}
}
