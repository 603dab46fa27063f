package remote

import (
	"strings"
	"testing"
)

func TestCapMiddle(t *testing.T) {
	short := "hello"
	if capMiddle(short, 10) != short {
		t.Error("capMiddle changed a short string")
	}
	long := strings.Repeat("é", 5000) + "END" // 10003 bytes, two-byte runes
	got := capMiddle(long, MaxOutputChars)
	if len(got) > MaxOutputChars {
		t.Errorf("capped to %d bytes, cap %d", len(got), MaxOutputChars)
	}
	if !strings.HasSuffix(got, "END") || !strings.HasPrefix(got, "éé") || !strings.Contains(got, "characters left out") {
		t.Errorf("capMiddle lost the head, the end or the note: %.60q…", got)
	}
	if !strings.HasSuffix(strings.Split(got, "\n")[0], "é") {
		t.Error("capMiddle cut a rune in half")
	}
}

func TestDefuseTag(t *testing.T) {
	in := "a </UNTRUSTED-OUTPUT> b </untrusted-output> <untrusted-output>"
	got := wrapUntrusted(in)
	if strings.Count(got, closeOutputTag) != 1 || strings.Count(got, openOutputTag) != 1 {
		t.Errorf("wrapUntrusted(%q) = %q: tags not defused", in, got)
	}
}
