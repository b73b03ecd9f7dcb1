package validate

import (
	"net/mail"
	"regexp"
	"strings"
	"testing"
)

// The contract's patterns, as regular expressions: the oracle the
// hand-written checks must agree with.
var oracle = map[string]struct {
	re *regexp.Regexp
	fn func(string) bool
}{
	"E164":           {regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`), E164},
	"UUID":           {regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`), UUID},
	"RoleSlug":       {regexp.MustCompile(`^org-[a-z0-9_-]+$`), RoleSlug},
	"PermissionSlug": {regexp.MustCompile(`^[a-z0-9:._*-]+$`), PermissionSlug},
}

var samples = []string{
	"", "+", "+1", "+12", "+012", "+61412345678", "+123456789012345", "+1234567890123456", "61412345678", "+6141234567a",
	"6f1c2a3e-1111-4222-8333-944445555666", "6F1C2A3E-1111-4222-8333-944445555666", "6f1c2a3e11114222833394444555566",
	"6f1c2a3e-1111-4222-8333-94444555566g", "6f1c2a3e-1111-4222-8333-9444455556666", "6f1c2a3e_1111-4222-8333-944445555666",
	"org-", "org-a", "org-admin_2-x", "org-Admin", "org-ad min", "Org-admin", "orgadmin", "org--", "org-é",
	"users:read", "users:*", "a.b_c-d:e*", "Users:read", "users read", "users/read", "ü", "x\n",
}

func TestChecksAgreeWithContractPatterns(t *testing.T) {
	for name, o := range oracle {
		for _, s := range samples {
			if got, want := o.fn(s), o.re.MatchString(s); got != want {
				t.Errorf("%s(%q) = %v, pattern says %v", name, s, got, want)
			}
		}
	}
}

func FuzzChecksAgreeWithContractPatterns(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, o := range oracle {
			if got, want := o.fn(s), o.re.MatchString(s); got != want {
				t.Errorf("%s(%q) = %v, pattern says %v", name, s, got, want)
			}
		}
	})
}

func TestEmail(t *testing.T) {
	for s, want := range map[string]bool{
		"ada@example.com": true, "a.b+c@sub.example.org": true,
		"": false, "ada": false, "Ada <ada@example.com>": false, "ada@": false, " ada@example.com": false,
	} {
		if got := Email(s); got != want {
			t.Errorf("Email(%q) = %v, want %v", s, got, want)
		}
	}
}

// emailNetMail is how Email was written first, with net/mail: the oracle the
// hand-written check must agree with.
func emailNetMail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == ""
}

var emailSamples = []string{
	"ada@example.com", "a.b+c@sub.example.org", "ADA@EXAMPLE.COM", "a@b", "ada@localhost", "x@-", "1@2.3",
	"!#$%&'*+-/=?^_`{|}~@example.com", "josé@exämple.com", "用户@例子.广告", "a\u00a0b@x.com", "a\u2028@x.com", "a\u0085@x.com",
	"\ufffd@x.com", "a\xff@x.com", "a@x\xc3", "a@x.com\xff", "a\x80b@x.com",
	"", "@", "ada", "ada@", "@example.com", "ada@@example.com", "a@b@c", "ada@example.com.", "ada.@example.com", ".ada@example.com",
	"a..b@example.com", "ada@example..com", "ada@.example.com", "a @example.com", "a@ example.com", "a@example.com ", " a@example.com",
	"\ta@example.com", "a@example.com\t", "a\x7f@x.com", "a\x00@x.com", "a,b@x.com", "a;b@x.com", "a:b@x.com", "a<b@x.com",
	"a>b@x.com", "a(b)@x.com", "a[b]@x.com", "a\\b@x.com", "a\"b@x.com", `"ada"@example.com`, `"a b"@example.com`, `"\"a"@x.com`,
	"Ada <ada@example.com>", "<ada@example.com>", "ada@example.com (Ada)", "(c)ada@example.com", "ada@example.com()",
	"g: ada@example.com;", "=?utf-8?q?x?= <a@b.c>", "a@[127.0.0.1]", "a@[::1]", "a@[IPv6:::1]", "a@[fe80::1%eth0]", "a@[]",
	"a@[1.2.3.4]]", "a@[1.2.3.4]x", "a@[1.2.3]", "a@[01.2.3.4]", "a@[::ffff:1.2.3.4]", "a@[ 1.2.3.4]", "a@[1.2.3.4", "a@1.2.3.4",
	"a@[x]", "[1.2.3.4]@x.com", "a@x.com\r\n", "a@x.com,b@y.com", "a@x.com;",
}

func TestEmailAgreesWithNetMail(t *testing.T) {
	for _, s := range emailSamples {
		if got, want := Email(s), emailNetMail(s); got != want {
			t.Errorf("Email(%q) = %v, net/mail says %v", s, got, want)
		}
	}
}

func FuzzEmailAgreesWithNetMail(f *testing.F) {
	for _, s := range emailSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Email(s), emailNetMail(s); got != want {
			t.Errorf("Email(%q) = %v, net/mail says %v", s, got, want)
		}
	})
}

// TestEmailDoesNotAllocate: Email runs on every UpdateUser; a valid address
// must cost no garbage.
func TestEmailDoesNotAllocate(t *testing.T) {
	for _, s := range []string{"ada@example.com", "josé@exämple.com", "a@[127.0.0.1]", "not an address"} {
		if n := testing.AllocsPerRun(100, func() { Email(s) }); n != 0 {
			t.Errorf("Email(%q) allocates %v times", s, n)
		}
	}
}

// BenchmarkEmail compares the check with the net/mail oracle it replaced.
func BenchmarkEmail(b *testing.B) {
	for _, bc := range []struct {
		name string
		fn   func(string) bool
	}{{"hand", Email}, {"netmail", emailNetMail}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if !bc.fn("ada.lovelace+sdk@example.com") {
					b.Fatal("rejected")
				}
			}
		})
	}
}

func TestErrorsListsEveryField(t *testing.T) {
	v := Errors{Operation: "op"}
	if v.Err() != nil {
		t.Fatal("no fields added, want nil error")
	}
	OpaqueID(&v, "userId", "")
	OpaqueID(&v, "orgId", "..")
	OpaqueID(&v, "ok", "user_01E4ZCR3C56J083X43JQXF3JK5")
	UUIDParam(&v, "id", "nope")
	err := v.Err()
	if err == nil {
		t.Fatal("want an error")
	}
	want := "memberplatform: op: invalid input: userId: must not be empty; orgId: must not be \".\" or \"..\"; id: must be a UUID (8-4-4-4-12 hexadecimal digits)"
	if err.Error() != want {
		t.Errorf("Error() = %q\nwant      %q", err.Error(), want)
	}
}

// Blank's shortcut on the first byte must agree with trimming, its oracle,
// for every first byte and for the white space that is not ASCII.
func TestBlankAgreesWithTrimSpace(t *testing.T) {
	inputs := []string{"", " ", "\t\n\v\f\r ", "\u00a0", "\u0085x", "\u2003", "\u3000 a", "\x7f", "a", " a ", "\xff", "é"}
	for c := range 256 {
		inputs = append(inputs, string([]byte{byte(c)}), string([]byte{byte(c)})+" ", string([]byte{byte(c), 'x'}))
	}
	for _, s := range inputs {
		if got, want := Blank(s), strings.TrimSpace(s) == ""; got != want {
			t.Errorf("Blank(%q) = %v, trimming says %v", s, got, want)
		}
	}
}
