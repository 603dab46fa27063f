package bgtasks

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestScopeSeesItsOwnSessionOrProject(t *testing.T) {
	cases := []struct {
		name           string
		scope          Scope
		owner, project string
		want           bool
	}{
		{"own session", Scope{Owner: "mcp-1", Project: "/p"}, "mcp-1", "/q", true},
		{"other session, same project", Scope{Owner: "mcp-1", Project: "/p"}, "mcp-2", "/p", false},
		{"no session: own project", Scope{Project: "/p"}, "mcp-2", "/p", true},
		{"no session: other project", Scope{Project: "/p"}, "", "/q", false},
		{"all", Scope{All: true, Owner: "mcp-1"}, "mcp-2", "/q", true},
		{"a record from before owners", Scope{Owner: "mcp-1"}, "", "", true},
	}
	for _, c := range cases {
		if got := c.scope.Sees(c.owner, c.project); got != c.want {
			t.Errorf("%s: Sees(%q, %q) = %v, want %v", c.name, c.owner, c.project, got, c.want)
		}
	}
}

func TestScopeFiltersTasksAndEventsOfARealRegistry(t *testing.T) {
	reg, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Meta{{Command: "a", Owner: "s1", Project: "/p"}, {Command: "b", Owner: "s2", Project: "/p"}, {Command: "c", Project: "/q"}} {
		task, err := reg.Create(m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := reg.AppendEvent(task.Meta.Event(EventExited)); err != nil {
			t.Fatal(err)
		}
	}
	tasks, err := reg.List()
	if err != nil {
		t.Fatal(err)
	}
	commands := func(ts []*Task) (out []string) {
		for _, t := range ts {
			out = append(out, t.Command)
		}
		slices.Sort(out)
		return out
	}
	if got := commands(Scope{Owner: "s1"}.Tasks(tasks)); !slices.Equal(got, []string{"a"}) {
		t.Errorf("session s1 sees tasks %q, want [a]", got)
	}
	if got := commands(Scope{Project: "/p"}.Tasks(tasks)); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("project /p sees tasks %q, want [a b]", got)
	}
	if got := commands(Scope{All: true}.Tasks(tasks)); len(got) != 3 {
		t.Errorf("all sees tasks %q, want 3", got)
	}
	events, err := reg.Events(0)
	if err != nil {
		t.Fatal(err)
	}
	got := Scope{Owner: "s2"}.Events(events)
	if len(got) != 1 || got[0].Command != "b" || got[0].Owner != "s2" || got[0].Project != "/p" {
		t.Errorf("session s2 sees events %+v, want b's alone with its owner and project", got)
	}
}

func TestProjectOfIsTheGitTopLevelElseTheDirectory(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	sub := filepath.Join(repo, "a", "b")
	worktree := filepath.Join(root, "wt")
	plain := filepath.Join(root, "plain")
	for _, d := range []string{filepath.Join(repo, ".git"), sub, worktree, plain} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// A linked worktree or submodule has a .git file, not a directory.
	if err := os.WriteFile(filepath.Join(worktree, ".git"), []byte("gitdir: elsewhere\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{sub: repo, repo: repo, worktree: worktree, plain: plain} {
		if got := ProjectOf(dir); got != want {
			t.Errorf("ProjectOf(%s) = %s, want %s", dir, got, want)
		}
	}
}
