package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runIn is e.run from directory dir.
func (e *env) runIn(dir string, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := e.command(ctx, args...)
	c.Dir = dir
	out, err := c.Output()
	code := 0
	if err != nil {
		code = c.ProcessState.ExitCode()
	}
	return result{stdout: string(out), code: code}
}

// TestTasksAndEventsKeepToTheirSessionOrProject: a call with a session sees
// that session's tasks and news; one without sees its project's (the git
// top level, else the directory); --all sees everyone's.
func TestTasksAndEventsKeepToTheirSessionOrProject(t *testing.T) {
	e := newEnv(t)
	root := filepath.Dir(e.home)
	repo, other := filepath.Join(root, "repo"), filepath.Join(root, "other")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "sub"), other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	start := func(dir string, args ...string) string {
		t.Helper()
		r := e.runIn(dir, append([]string{"bg", "run"}, args...)...)
		if r.code != 0 {
			t.Fatalf("bg run %v: exit %d", args, r.code)
		}
		return strings.TrimSpace(r.stdout)
	}
	inSub := start(filepath.Join(repo, "sub"), "--", "sleep", "30")
	inOther := start(other, "--", "sleep", "30")
	owned := start(other, "--session", "s1", "--", "sh", "-c", "echo done")
	t.Cleanup(func() {
		e.run("bg", "kill", inSub)
		e.run("bg", "kill", inOther)
	})
	lists := func(dir string, args ...string) string {
		t.Helper()
		return e.runIn(dir, append([]string{"bg", "ls"}, args...)...).stdout
	}
	sees := func(what, listing string, want, not []string) {
		t.Helper()
		for _, id := range want {
			if !strings.Contains(listing, id+" ") {
				t.Errorf("%s does not list %s:\n%s", what, id, listing)
			}
		}
		for _, id := range not {
			if strings.Contains(listing, id+" ") {
				t.Errorf("%s lists %s, which is not its own:\n%s", what, id, listing)
			}
		}
	}
	sees("the repository's top level", lists(repo), []string{inSub}, []string{inOther})
	sees("the other directory", lists(other), []string{inOther, owned}, []string{inSub})
	sees("session s1", lists(repo, "--session", "s1"), []string{owned}, []string{inSub, inOther})
	e.extra = []string{"HANGDOG_SESSION=s1"}
	sees("HANGDOG_SESSION=s1", lists(repo), []string{owned}, []string{inSub, inOther})
	e.extra = nil
	sees("--all", lists(repo, "--all"), []string{inSub, inOther, owned}, nil)

	// What a running task's processes cost, in the table and in JSON.
	var tasks []struct {
		ID    string `json:"id"`
		Usage *struct {
			Procs    int    `json:"procs"`
			RSSBytes uint64 `json:"rss_bytes"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(lists(repo, "--json")), &tasks); err != nil || len(tasks) != 1 {
		t.Fatalf("bg ls --json: %v %+v", err, tasks)
	}
	if u := tasks[0].Usage; u == nil || u.Procs < 1 || u.RSSBytes == 0 {
		t.Errorf("a running sleep's usage is %+v, want its process and memory", u)
	}

	r := e.runIn(other, "bg", "wait", owned)
	if r.code != 0 {
		t.Fatalf("bg wait %s: exit %d", owned, r.code)
	}
	events := func(dir string, args ...string) string {
		return e.runIn(dir, append([]string{"events"}, args...)...).stdout
	}
	if got := events(repo, "--session", "s1"); !strings.Contains(got, owned+" exited 0") {
		t.Errorf("session s1's events lack its task's end:\n%s", got)
	}
	if got := events(repo); strings.Contains(got, owned+" ") {
		t.Errorf("the repository's events tell of another project's session's task:\n%s", got)
	}
	if got := e.runIn(repo, "bg", "ls", "--session", "no spaces"); got.code != exitHangdogError {
		t.Errorf("a bad session name: exit %d, want %d", got.code, exitHangdogError)
	}
}
