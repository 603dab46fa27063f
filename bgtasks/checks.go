package bgtasks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hangdog/hangdog/internal/safefile"
)

// checksFileName, in a task's directory, holds the watchdog's last checks of
// that task, one line each (watchdog.Decision.LogLine), newest last: always
// written, whatever watchdog.debug says, so a detach or a non-detach can be
// explained after the fact (`hangdog log --task ID`).
const checksFileName = "checks.log"

// MaxCheckRecords is how many of a task's last checks its checks file keeps:
// enough to see the streak that led to an act (agreeChecks due checks and the
// fast checks between them), small enough to rewrite at every check.
const MaxCheckRecords = 20

// ChecksPath is task id's record of its last watchdog checks.
func (r *Registry) ChecksPath(id string) string {
	return filepath.Join(r.taskDir(id), checksFileName)
}

// CheckRecords keeps a task's last checks in memory and in its checks file.
// It is owned by the task's supervisor's check loop and is not safe for
// concurrent use.
type CheckRecords struct {
	path  string
	lines []string
}

// NewCheckRecords writes the records of task id.
func (r *Registry) NewCheckRecords(id string) *CheckRecords {
	return &CheckRecords{path: r.ChecksPath(id)}
}

// Add records one check (a line with no newline) and rewrites the file with
// the last MaxCheckRecords, atomically, so a reader never sees half a line.
func (c *CheckRecords) Add(line string) error {
	line = strings.ReplaceAll(line, "\n", " ")
	if len(c.lines) == MaxCheckRecords {
		copy(c.lines, c.lines[1:])
		c.lines = c.lines[:MaxCheckRecords-1]
	}
	c.lines = append(c.lines, line)
	if err := safefile.Write(c.path, []byte(strings.Join(c.lines, "\n")+"\n")); err != nil {
		return fmt.Errorf("record the watchdog's check: %w", err)
	}
	return nil
}

// Last is the newest check recorded, or "".
func (c *CheckRecords) Last() string {
	if len(c.lines) == 0 {
		return ""
	}
	return c.lines[len(c.lines)-1]
}

// NoChecks says why a task has no checks to show.
const NoChecks = "no watchdog checks: it ended before its first check, or the watchdog does not watch it"

// ReadChecks is task id's last watchdog checks, oldest first; none (and no
// error) for a task the watchdog never checked.
func (r *Registry) ReadChecks(id string) ([]string, error) {
	b, err := os.ReadFile(r.ChecksPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the watchdog's checks of %s: %w", id, err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), nil
}
