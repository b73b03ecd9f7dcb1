package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/exampletest"
	"github.com/memberplatform/memberplatform-go/internal/leakcheck"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

// update rewrites the golden output instead of comparing with it: after
// adding an operation's step, run go test ./examples/quickstart -update and
// read the diff.
var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// goldenWithoutEnvironment is the output of a run against the fake, its
// err.Error() line aside.
const goldenWithoutEnvironment = "testdata/without-environment.golden"

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
	if *update {
		if err := os.WriteFile(goldenWithoutEnvironment, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenWithoutEnvironment)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output:\n%s\nwant (%s; go test ./examples/quickstart -update rewrites it):\n%s", got, goldenWithoutEnvironment, want)
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
				"(then go test ./examples/quickstart -update writes its line into testdata/without-environment.golden)", op.Name)
		}
	}
	if strings.Contains(out.String(), "skipped") {
		t.Errorf("an operation was skipped with every identifier set:\n%s", out.String())
	}
}
