package jev

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		in     string
		secret string // must be gone
		keep   string // must stay
	}{
		{"Authorization: Bearer abc.def-123_456789", "abc.def-123_456789", "Authorization: Bearer"},
		{`curl -H "authorization: token 0123456789abcdef" x`, "0123456789abcdef", "curl -H"},
		{"auth with bearer eyJ0eXAiOiJKV1QiLCJhbGciOi", "eyJ0eXAiOiJKV1QiLCJhbGciOi", "auth with bearer"},
		{"OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx", "OPENAI_API_KEY="},
		{"key sk-ant-api03-abcdefghijklmnopqrstuv used", "sk-ant-api03-abcdefghijklmnopqrstuv", "used"},
		{"ghp_0123456789abcdefghijABCDEFGHIJ012345 leaked", "ghp_0123456789abcdefghij", "leaked"},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_11ABCDEFG", ""},
		{"aws AKIAIOSFODNN7EXAMPLE ok", "AKIAIOSFODNN7EXAMPLE", "aws"},
		{"slack xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij", "slack"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig-_abc", "eyJzdWIiOiIxMjM0In0", "jwt"},
		{"password=hunter2&user=bob", "hunter2", "user=bob"},
		{`{"password": "correct horse battery"}`, "correct horse battery", `"password"`},
		{"DB_PASSWORD='p@ss w0rd'", "p@ss w0rd", "DB_PASSWORD="},
		{"token: abc123xyz", "abc123xyz", "token:"},
		{"client_secret=s3cr3t;next", "s3cr3t", ";next"},
		{"api_key=AIzaSyD-123", "AIzaSyD-123", "api_key="},
		{"API-KEY: 9f8e7d6c", "9f8e7d6c", "API-KEY"},
		{"mysql --password hunter22 -u root", "hunter22", "-u root"},
		{"git clone https://bob:pa55word@github.com/x/y", "pa55word", "https://bob:"},
		{"postgres://app:s3cret@db:5432/app", "s3cret", "@db:5432/app"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabcdef\n-----END RSA PRIVATE KEY-----\nafter", "MIIEowIBAAKCAQEA", "after"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n(cut off)", "b3BlbnNzaC1rZXktdjEAAAAA", "BEGIN"},
		{"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nEND", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj", "END"},
	}
	for _, tt := range tests {
		got := Redact(tt.in)
		if strings.Contains(got, tt.secret) {
			t.Errorf("Redact(%q) = %q: still holds %q", tt.in, got, tt.secret)
		}
		if !strings.Contains(got, tt.keep) {
			t.Errorf("Redact(%q) = %q: lost %q", tt.in, got, tt.keep)
		}
		if !strings.Contains(got, redacted) {
			t.Errorf("Redact(%q) = %q: no [REDACTED] mark", tt.in, got)
		}
		if again := Redact(got); again != got {
			t.Errorf("Redact is not idempotent: %q → %q", got, again)
		}
	}
}

// Text that lower-casing would resize must not shift what gets replaced.
func TestRedactNonASCII(t *testing.T) {
	for _, in := range []string{"İİİİ password=hunter2 ok", "\xff\xfeTOKEN=abc123 ok", "ẞtraße secret: swordfish ok"} {
		got := Redact(in)
		if strings.Contains(got, "hunter2") || strings.Contains(got, "abc123") || strings.Contains(got, "swordfish") || !strings.HasSuffix(got, " ok") {
			t.Errorf("Redact(%q) = %q", in, got)
		}
	}
}

func TestRedactLeavesOrdinaryTextAlone(t *testing.T) {
	for _, s := range []string{
		"",
		"Compiling hangdog v0.1.0 (/src/hangdog)",
		"PASS ok github.com/hangdog/hangdog/jev 0.2s",
		"Enter passphrase for key '/home/dev/.ssh/id_ed25519': ",
		"[sudo] password for dev: ",
		"Password: ",
		"visit https://example.com/docs?page=2",
		"skip-worktree set",
	} {
		if got := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestPrintable(t *testing.T) {
	tests := map[string]string{
		"plain":                          "plain",
		"\x1b[31mred\x1b[0m":             " red ",
		"\x1b]0;title\x07after":          " after",
		"bell\x07 nul\x00":               "bell  nul ",
		"bidi \u202eevil":                "bidi  evil",
		"tab\tand\rcr":                   "tab and cr",
		"ünïcödé ✓":                      "ünïcödé ✓",
		"\x1b]8;;http://x\x1b\\link":     " link",
		"broken \xff byte":               "broken   byte",
		"unterminated \x1b[12":           "unterminated  ",
		"\x1bPdcs payload\x1b\\ visible": "  visible",
	}
	for in, want := range tests {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}
