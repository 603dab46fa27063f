package taskctl

import (
	"context"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/procusage"
)

// TreeUsage reads what each running task's processes cost now (CPU time and
// resident memory of its whole tree below the supervisor), by task id, for
// a listing (`bg ls`, the shell's /bg). It reads the process table once, and
// not at all when none of tasks is running; ended tasks have no entry.
func TreeUsage(ctx context.Context, tasks []*bgtasks.Task) map[string]procusage.Usage {
	roots := map[string]int{}
	for _, t := range tasks {
		if !t.State().Ended() && t.SupervisorPID > 0 {
			roots[t.ID] = t.SupervisorPID
		}
	}
	return procusage.Trees(ctx, roots)
}
