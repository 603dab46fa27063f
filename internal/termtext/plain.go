package termtext

import "strings"

// Plain returns b as plain text (see the package comment). A line without a
// final newline is returned without one.
func Plain(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	w := NewWriter(&sb)
	// strings.Builder never fails, so neither can the Writer on top of it.
	_, _ = w.Write(b)
	_ = w.Close()
	return sb.String()
}
