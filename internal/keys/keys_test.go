package keys

import "testing"

func TestUnescape(t *testing.T) {
	cases := map[string]string{`y\n`: "y\n", `\x03`: "\x03", `a\tb\r`: "a\tb\r", `\\n`: `\n`, `\e[A`: "\x1b[A", `plain`: "plain", `\q`: `\q`, `end\`: `end\`, `\0`: "\x00"}
	for in, want := range cases {
		got, err := Unescape(in)
		if err != nil || string(got) != want {
			t.Errorf("Unescape(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`\x`, `\x0`, `\xzz`} {
		if _, err := Unescape(bad); err == nil {
			t.Errorf("Unescape(%q) accepted a bad escape", bad)
		}
	}
}
