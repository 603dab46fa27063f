package settings

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestKeepDaysReachesKeepEnded(t *testing.T) {
	cases := []struct {
		name string
		l    layers
		want time.Duration
	}{
		{"default", layers{}, 7 * 24 * time.Hour},
		{"user file", layers{user: "tasks:\n  keepDays: 30\n"}, 30 * 24 * time.Hour},
		{"environment", layers{env: map[string]string{"HANGDOG_TASKS_KEEPDAYS": "0.5"}}, 12 * time.Hour},
		{"flag over file", layers{user: "tasks: {keepDays: 30}\n", flags: map[string]string{"tasks.keepDays": "1.5"}}, 36 * time.Hour},
		{"forever", layers{flags: map[string]string{"tasks.keepDays": "0"}}, 0},
	}
	for _, c := range cases {
		got := c.l.load(t)
		if got.err != nil {
			t.Fatalf("%s: %v", c.name, got.err)
		}
		if k := got.settings.KeepEnded(); k != c.want {
			t.Errorf("%s: KeepEnded = %v, want %v", c.name, k, c.want)
		}
	}
}

// A project file comes with a repository: it must not be able to delete the
// output of every other project's tasks.
func TestKeepDaysIsRefusedInAProjectFile(t *testing.T) {
	got := layers{project: "tasks:\n  keepDays: 0.01\n"}.load(t)
	if got.err == nil || !strings.Contains(got.err.Error(), "tasks.keepDays: cannot be set in a project file") ||
		!strings.HasSuffix(got.err.Error(), "must not decide how long the output of your other projects' tasks is kept") {
		t.Fatalf("error = %v, want the project file refused, saying why", got.err)
	}
	for _, k := range keySpecs {
		if k.UserOnly && k.userOnlyWhy == "" {
			t.Errorf("%s is user-only without saying why", k.Key)
		}
	}
}

func TestKeepDaysRefusesBadValues(t *testing.T) {
	for _, text := range []string{"-1", "3651", "week", "NaN"} {
		if _, err := Validate("tasks.keepDays", text); err == nil || !strings.Contains(err.Error(), "a number of days from 0 to 3650") {
			t.Errorf("Validate(tasks.keepDays, %q) = %v, want it refused with what is allowed", text, err)
		}
	}
	// A watchdog key may drop its group's name; another group's may not.
	if _, err := Validate("keepDays", "3"); err == nil || !strings.Contains(err.Error(), "did you mean tasks.keepDays?") {
		t.Errorf("Validate(keepDays) = %v, want it unknown with tasks.keepDays suggested", err)
	}
	got := layers{user: "watchdog:\n  keepDays: 3\n"}.load(t)
	if got.err == nil || !strings.Contains(got.err.Error(), "watchdog.keepDays: unknown key") {
		t.Errorf("keepDays under watchdog: error = %v, want an unknown key", got.err)
	}
}

func TestMisspeltTasksVariableIsRefused(t *testing.T) {
	t.Setenv("HANGDOG_TASKS_KEEPDAY", "3")
	_, err := Load(Options{Dir: t.TempDir(), UserFile: "/nonexistent/config.yaml"})
	want := "environment variable HANGDOG_TASKS_KEEPDAY: names no setting; did you mean HANGDOG_TASKS_KEEPDAYS (tasks.keepDays)?"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant %s", err, want)
	}
	// HANGDOG_TASK_ID, which every command sees, is no setting's group.
	os.Unsetenv("HANGDOG_TASKS_KEEPDAY") // t.Setenv restores it afterwards
	t.Setenv("HANGDOG_TASK_ID", "t1")
	if _, err := Load(Options{Dir: t.TempDir(), UserFile: "/nonexistent/config.yaml"}); err != nil {
		t.Errorf("with HANGDOG_TASK_ID set: %v", err)
	}
}
