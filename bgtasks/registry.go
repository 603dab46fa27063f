package bgtasks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Registry is the task registry rooted at one home directory. It holds no
// open files or cached state, so any number of Registry values in any number
// of processes can share a home.
type Registry struct {
	home string
}

// File names inside <home> and inside a task directory.
const (
	tasksDirName     = "tasks"
	logsDirName      = "logs"
	consumersDirName = "consumers"
	lockFileName     = "lock"
	counterFileName  = "task-counter"
	eventsFileName   = "events.jsonl"
	pruneStampName   = "last-prune"

	metaFileName   = "meta.json"
	resultFileName = "result.json"
	outputFileName = "output.log"
	socketFileName = "sock"
	// supervisorLogName takes the supervisor's stdout and stderr.
	supervisorLogName = "supervisor.log"
	// checkLogName, under logsDirName, is the watchdog's debug log, shared
	// by every supervisor of the home.
	checkLogName = "watchdog.log"

	// removingPrefix marks a task directory being deleted; renaming first
	// means a half-deleted task is never listed.
	removingPrefix = ".removing-"
)

// ValidID reports whether id has the shape of a task id: t1, t2, … It is
// checked by hand, not by a regexp, because every hangdog process —
// supervisors included — pays for package-level regexps at start-up.
func ValidID(id string) bool {
	if len(id) < 2 || len(id) > 20 || id[0] != 't' || id[1] == '0' {
		return false
	}
	for i := 1; i < len(id); i++ {
		if id[i] < '0' || id[i] > '9' {
			return false
		}
	}
	return true
}

// Open makes sure home and its subdirectories exist (0700) and that home is
// writable, and returns the registry there.
func Open(home string) (*Registry, error) {
	if home == "" {
		return nil, errors.New("no hangdog home given; set HANGDOG_HOME to a writable directory")
	}
	r := &Registry{home: home}
	for _, dir := range []string{home, r.tasksDir(), r.LogsDir(), r.consumersDir()} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, unusableHome(home, err)
		}
	}
	f, err := os.OpenFile(r.lockPath(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, unusableHome(home, err)
	}
	_ = f.Close()
	return r, nil
}

// Opened returns the registry at a home another process has just opened
// with Open, without checking its directories again: a supervisor gets its
// home from the caller that registered its task there.
func Opened(home string) *Registry { return &Registry{home: home} }

func unusableHome(home string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot use %s as the hangdog home: %w; set HANGDOG_HOME to a writable directory", home, err)
}

// Home returns the registry's home directory.
func (r *Registry) Home() string { return r.home }

// LogsDir is where supervisors write their debug logs.
func (r *Registry) LogsDir() string { return filepath.Join(r.home, logsDirName) }

func (r *Registry) tasksDir() string         { return filepath.Join(r.home, tasksDirName) }
func (r *Registry) consumersDir() string     { return filepath.Join(r.home, consumersDirName) }
func (r *Registry) lockPath() string         { return filepath.Join(r.home, lockFileName) }
func (r *Registry) counterPath() string      { return filepath.Join(r.home, counterFileName) }
func (r *Registry) eventsPath() string       { return filepath.Join(r.home, eventsFileName) }
func (r *Registry) pruneStampPath() string   { return filepath.Join(r.home, pruneStampName) }
func (r *Registry) taskDir(id string) string { return filepath.Join(r.tasksDir(), id) }

// TaskDir is where task id's files are, whether or not it exists.
func (r *Registry) TaskDir(id string) string { return r.taskDir(id) }

// checkID rejects anything that is not a task id before it reaches a path,
// so "../x" can never name a file outside the registry.
func checkID(id string) error {
	if !ValidID(id) {
		return errorOf(ErrNotFound, "no task %q: task ids look like t12; `hangdog bg ls` lists tasks", id)
	}
	return nil
}

// Create allocates the next task id, makes the task directory and writes
// meta.json with m.ID set. An empty State becomes Starting and a zero
// Started becomes now.
func (r *Registry) Create(m Meta) (*Task, error) {
	var t *Task
	err := r.withLock(func() error {
		n, err := r.nextTaskNumber(false)
		if err != nil {
			return err
		}
		dir := r.taskDir("t" + strconv.FormatUint(n, 10))
		err = os.Mkdir(dir, 0o700)
		if errors.Is(err, fs.ErrExist) {
			// The counter fell behind the directories (restored from a
			// backup, edited): never reuse an id, go past them all.
			if n, err = r.nextTaskNumber(true); err != nil {
				return err
			}
			dir = r.taskDir("t" + strconv.FormatUint(n, 10))
			err = os.Mkdir(dir, 0o700)
		}
		if err != nil {
			return fmt.Errorf("create task directory: %w", err)
		}
		// Recorded before meta.json: if anything below fails the id is
		// skipped, never handed out twice.
		if err := r.writeCounter(n); err != nil {
			return err
		}
		m.ID = "t" + strconv.FormatUint(n, 10)
		if m.State == "" {
			m.State = Starting
		}
		if m.Started.IsZero() {
			m.Started = time.Now()
		}
		if err := writeJSONAtomic(filepath.Join(dir, metaFileName), m); err != nil {
			return err
		}
		t = &Task{Meta: m, Dir: dir}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("create task: %w", err)
	}
	return t, nil
}

// nextTaskNumber returns the number after the counter's. When the counter
// is missing or damaged, or scan is set, it also goes past the highest task
// directory present and the ended mark, so an id still on disk, or one a
// listing takes for ended, is never handed out again. Call under the lock.
func (r *Registry) nextTaskNumber(scan bool) (uint64, error) {
	var last uint64
	b, err := os.ReadFile(r.counterPath())
	switch {
	case err == nil:
		last, err = strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		scan = scan || err != nil
	case errors.Is(err, fs.ErrNotExist):
		scan = true
	default:
		return 0, fmt.Errorf("read task counter: %w", err)
	}
	if scan {
		// Nor a number the ended mark vouches for: a task given one would
		// be taken for ended by every listing that trusts the mark.
		last = max(last, r.markFloor())
		entries, err := os.ReadDir(r.tasksDir())
		if err != nil {
			return 0, fmt.Errorf("list tasks: %w", err)
		}
		for _, e := range entries {
			if n, ok := taskNumber(e.Name()); ok && n > last {
				last = n
			}
		}
	}
	return last + 1, nil
}

// writeCounter stores the last task number in place, at fixed width: one
// small write(2) that a dying process cannot tear, and cheaper than a
// temp-file rename on every task hangdog starts. Call under the lock.
func (r *Registry) writeCounter(n uint64) error {
	f, err := os.OpenFile(r.counterPath(), os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("write task counter: %w", err)
	}
	defer f.Close()
	line := fmt.Sprintf("%020d\n", n)
	if _, err := f.WriteString(line); err != nil {
		return fmt.Errorf("write task counter: %w", err)
	}
	// Only a counter damaged by hand is longer; cut what follows.
	if fi, err := f.Stat(); err == nil && fi.Size() > int64(len(line)) {
		if err := f.Truncate(int64(len(line))); err != nil {
			return fmt.Errorf("write task counter: %w", err)
		}
	}
	return nil
}

func taskNumber(id string) (uint64, bool) {
	if !ValidID(id) {
		return 0, false
	}
	n, err := strconv.ParseUint(id[1:], 10, 64)
	return n, err == nil
}
