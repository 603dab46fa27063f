// Package teawait holds what the screens' tests share: waiting for a
// bubbletea program's output to show some text. Only tests import it.
package teawait

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
)

// For reads the program's output, colours stripped, until it shows all of
// want, and fails the test after timeout.
func For(t *testing.T, tm *teatest.TestModel, timeout time.Duration, want ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		plain := ansi.Strip(string(b))
		for _, w := range want {
			if !strings.Contains(plain, w) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(timeout), teatest.WithCheckInterval(10*time.Millisecond))
}
