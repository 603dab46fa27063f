package supervisor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/settings/watchdogconf"
)

// Spec is everything a supervisor needs to run a task. The caller resolves it
// (settings layers, cwd, environment) so the supervisor process loads nothing
// heavy at start-up; it travels as the task's spec.json.
type Spec struct {
	Command     string                `json:"command"`        // display form; run with bash -c when Shell
	Argv        []string              `json:"argv,omitempty"` // exec'd directly when !Shell
	Shell       bool                  `json:"shell"`
	Cwd         string                `json:"cwd"`
	Env         []string              `json:"-"` // handed to the supervisor by exec, never written to disk (it may hold secrets)
	Rows        uint16                `json:"rows"`
	Cols        uint16                `json:"cols"`
	Mode        bgtasks.Mode          `json:"mode"`
	Interactive bool                  `json:"interactive"` // a person is at the caller's terminal
	Watchdog    watchdogconf.Watchdog `json:"watchdog"`
}

const specFile = "spec.json"

func writeSpec(dir string, s Spec) error {
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode task spec: %w", err)
	}
	return bgtasks.WriteFileAtomic(filepath.Join(dir, specFile), b)
}

func readSpec(dir string) (Spec, error) {
	var s Spec
	b, err := os.ReadFile(filepath.Join(dir, specFile))
	if err != nil {
		return s, fmt.Errorf("read task spec: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("parse %s: %w", filepath.Join(dir, specFile), err)
	}
	return s, nil
}
