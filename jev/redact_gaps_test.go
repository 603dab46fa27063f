package jev

import (
	"strings"
	"testing"
)

// The gaps issue 14 found: Google API keys, and sk- keys shorter than 16
// characters after the prefix.
func TestRedactGoogleKeysAndShortSKKeys(t *testing.T) {
	for _, tt := range []struct{ in, secret string }{
		{"GOOGLE_API=AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW ok", "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"},
		{"curl 'https://maps.googleapis.com/x?key=AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW&q=1' ok", "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"},
		{"using sk-1234 for the proxy ok", "sk-1234"},
		{"export X=sk-abc123def ok", "sk-abc123def"},
	} {
		got := Redact(tt.in)
		if strings.Contains(got, tt.secret) || !strings.Contains(got, redacted) || !strings.HasSuffix(got, " ok") {
			t.Errorf("Redact(%q) = %q", tt.in, got)
		}
		if again := Redact(got); again != got {
			t.Errorf("not idempotent: %q → %q", got, again)
		}
	}
	for _, s := range []string{"pip install sk-learn", "uses sk-learn-contrib now", "disk-12 full", "task-1234"} {
		if got := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q, want it unchanged", s, got)
		}
	}
}
