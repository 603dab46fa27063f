package proto

import (
	"syscall"
	"testing"
	"time"
)

func TestKillRequestResolvedFillsOnlyWhatIsMissing(t *testing.T) {
	sig, grace, reason := KillRequest{}.Resolved(7 * time.Second)
	if sig != syscall.SIGTERM || grace != 7*time.Second || reason != "killed on request" {
		t.Errorf("an empty request resolved to %v, %v, %q", sig, grace, reason)
	}
	sig, grace, reason = KillRequest{Signal: int(syscall.SIGKILL), GraceMS: 250, Reason: "bg kill"}.Resolved(7 * time.Second)
	if sig != syscall.SIGKILL || grace != 250*time.Millisecond || reason != "bg kill" {
		t.Errorf("a full request resolved to %v, %v, %q", sig, grace, reason)
	}
}
