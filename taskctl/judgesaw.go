package taskctl

import (
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/watchdog"
)

// WithJudgeSaw adds to the reason of a detach that was not the watchdog's
// (a caller's wait ran out: `hangdog mcp --max-wait`, `run --detach-after`)
// what the watchdog last saw of task id, read from its checks record — so
// the caller learns why the judge had not acted, not only that time ran
// out. The reason is returned unchanged when nothing was recorded.
func WithJudgeSaw(reg *bgtasks.Registry, id, reason string) string {
	lines, err := reg.ReadChecks(id)
	if err != nil || len(lines) == 0 {
		return reason
	}
	seen := watchdog.SeenInRecord(lines[len(lines)-1], time.Now())
	if seen == "" {
		return reason
	}
	return reason + "; " + seen
}
