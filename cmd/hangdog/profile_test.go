package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runJSON is `hangdog run --json` from dir, as a harness runs a command
// nobody is at, decoded.
func (e *env) runJSON(t *testing.T, dir string, args ...string) runReport {
	t.Helper()
	r := e.runIn(dir, append([]string{"run", "--json"}, args...)...)
	var rep runReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("run --json %q: %v\n%s\n%s", args, err, r.stdout, e.lastTaskChecks())
	}
	return rep
}

// lastTaskChecks is what the newest task's watchdog saw (its check record
// and `bg ls`), for a failure's message: a run that neither ended nor was
// detached says why here.
func (e *env) lastTaskChecks() string {
	ls := e.run("bg", "ls", "--all", "--json")
	var tasks []lsTask
	if json.Unmarshal([]byte(ls.stdout), &tasks) != nil || len(tasks) == 0 {
		return "bg ls: " + ls.stdout + ls.stderr
	}
	newest := tasks[0]
	for _, task := range tasks {
		if len(task.ID) > len(newest.ID) || (len(task.ID) == len(newest.ID) && task.ID > newest.ID) {
			newest = task
		}
	}
	log := e.run("log", "--task", newest.ID)
	return fmt.Sprintf("task %s (%s, %s); its checks:\n%s%s", newest.ID, newest.State, newest.Mode, log.stdout, log.stderr)
}

// repoWithCommits makes a git repository of n commits at once, with
// fast-import.
func repoWithCommits(t *testing.T, n int) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	var stream strings.Builder
	for i := 1; i <= n; i++ {
		msg := fmt.Sprintf("change number %d", i)
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter t <t@t> %d +0000\ndata %d\n%s\n", 1700000000+i, len(msg), msg)
		fmt.Fprintf(&stream, "M 644 inline f\ndata %d\n%d\n\n", len(fmt.Sprint(i))+1, i)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"fast-import", "--quiet"}, {"checkout", "-q", "main"}} {
		c := exec.Command("git", args...)
		c.Dir = dir
		if args[0] == "fast-import" {
			c.Stdin = strings.NewReader(stream.String())
		}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// TestAgentProfilePreventsTheCommonHangs: a command nobody is at runs with
// no pager, an editor that fails at once saying what to do, and end of
// input for a read of the terminal with no prompt, while a prompt is still
// detached and answerable.
func TestAgentProfilePreventsTheCommonHangs(t *testing.T) {
	e := newEnv(t)
	// The test's own environment must not choose a pager or an editor.
	for _, v := range []string{"PAGER", "GIT_PAGER", "EDITOR", "VISUAL", "GIT_EDITOR"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	e.extra = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + t.TempDir()}
	repo := repoWithCommits(t, 500)

	log := e.runJSON(t, repo, "--", "git", "log", "--oneline")
	if log.Status != "exited" || strings.Count(log.Output, "change number") != 500 || strings.ContainsRune(log.Output, 0x1b) {
		t.Errorf("git log: status %s after %d ms, %d of 500 commits:\n%.300s", log.Status, log.DurationMS, strings.Count(log.Output, "change number"), log.Output)
	}

	if err := os.WriteFile(filepath.Join(repo, "g"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	commit := e.runJSON(t, repo, "git add g && git commit")
	if commit.Status != "exited" || commit.ExitCode == nil || *commit.ExitCode == 0 || !strings.Contains(commit.Output, "git commit -m MESSAGE") {
		t.Errorf("git commit without -m: status %s, exit %v after %d ms:\n%s", commit.Status, commit.ExitCode, commit.DurationMS, commit.Output)
	}

	wc := e.runJSON(t, repo, "wc -l")
	if wc.Status != "exited" || wc.ExitCode == nil || *wc.ExitCode != 0 || strings.TrimSpace(wc.Output) != "0" {
		t.Errorf("wc -l with no input: status %s, exit %v, output %q, want exit 0 and 0", wc.Status, wc.ExitCode, wc.Output)
	}

	prompt := e.runJSON(t, repo, `read -p "Overwrite? [y/N] " a; echo "got $a"`)
	if prompt.Status != "detached" || !strings.Contains(prompt.Reason, "Overwrite?") {
		t.Errorf("a prompt under the profile: status %s, reason %q; want it detached, naming the prompt", prompt.Status, prompt.Reason)
	}
	if prompt.TaskID != "" {
		e.run("bg", "kill", prompt.TaskID)
	}

	// The profile off: the same read is detached as waiting for input.
	e.extra = append(e.extra, "HANGDOG_TASKS_AGENTPROFILE=false")
	off := e.runJSON(t, repo, "wc -l")
	if off.Status != "detached" {
		t.Errorf("wc -l with the profile off: status %s, want detached", off.Status)
	}
	if off.TaskID != "" {
		e.run("bg", "kill", off.TaskID)
	}
}
