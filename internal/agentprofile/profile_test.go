package agentprofile

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

func TestApplyFillsInAndKeepsTheCallersChoice(t *testing.T) {
	in := []string{"HOME=/h", "PAGER=most", "AWS_PAGER=less", "EDITOR="}
	out := Apply(in)
	if !slices.Equal(out[:len(in)], in) {
		t.Fatalf("Apply changed the caller's variables: %q", out[:len(in)])
	}
	got := map[string][]string{}
	for _, kv := range out {
		name, val, _ := strings.Cut(kv, "=")
		got[name] = append(got[name], val)
	}
	for name, want := range map[string]string{"PAGER": "most", "AWS_PAGER": "less", "EDITOR": "", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"} {
		if vals := got[name]; len(vals) != 1 || vals[0] != want {
			t.Errorf("%s = %q, want exactly %q", name, vals, want)
		}
	}
	for _, v := range Vars {
		if len(got[v.Name]) != 1 {
			t.Errorf("%s set %d times", v.Name, len(got[v.Name]))
		}
		if v.Prevents == "" {
			t.Errorf("%s says no hang it prevents", v.Name)
		}
	}
	if len(in) != 4 || in[1] != "PAGER=most" {
		t.Fatalf("Apply modified its input: %q", in)
	}
}

// profileEnv is the test's environment without anything that would choose a
// pager or editor for the commands under test, with the profile applied.
func profileEnv(t *testing.T) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if slices.ContainsFunc(Vars, func(v Var) bool { return v.Name == name }) || strings.HasPrefix(name, "GIT_") {
			continue
		}
		env = append(env, kv)
	}
	return Apply(append(env, "HOME="+t.TempDir(), "TERM=xterm", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"))
}

// onTerminal runs argv on a fresh PTY, as hangdog runs a command, so the
// program sees a terminal and would page or open an editor; it fails the
// test if the program does not end by itself within a few seconds.
func onTerminal(t *testing.T, dir string, env []string, argv ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&out, ptmx); close(copied) }()
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("%q did not end by itself under the profile (a pager or editor is waiting?); output so far:\n%s", argv, out.String())
	}
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
	}
	return out.String(), err
}

func gitRepo(t *testing.T, env []string, commits int) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	for i := range commits {
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte{byte(i)}, 0o600); err != nil {
			t.Fatal(err)
		}
		run("add", "f")
		run("commit", "-q", "-m", "commit "+strings.Repeat("x", i%7))
	}
	return dir
}

func TestGitLogPrintsEverythingWithoutAPager(t *testing.T) {
	env := profileEnv(t)
	dir := gitRepo(t, env, 60)
	out, err := onTerminal(t, dir, env, "git", "log", "--oneline")
	if err != nil {
		t.Fatalf("git log: %v\n%s", err, out)
	}
	if n := strings.Count(out, " commit"); n != 60 {
		t.Fatalf("git log printed %d of 60 commits:\n%s", n, out)
	}
}

func TestGitCommitWithoutMessageFailsFastSayingWhatToDo(t *testing.T) {
	env := profileEnv(t)
	dir := gitRepo(t, env, 1)
	if err := os.WriteFile(filepath.Join(dir, "g"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "add", "g")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	out, err := onTerminal(t, dir, env, "git", "commit")
	if err == nil {
		t.Fatalf("git commit without -m succeeded under the profile:\n%s", out)
	}
	if !strings.Contains(out, "git commit -m MESSAGE") {
		t.Fatalf("git commit's failure does not say to pass -m:\n%s", out)
	}
}

func TestRebaseInteractiveFailsFastSayingWhatToDo(t *testing.T) {
	env := profileEnv(t)
	dir := gitRepo(t, env, 3)
	out, err := onTerminal(t, dir, env, "git", "rebase", "-i", "HEAD~2")
	if err == nil {
		t.Fatalf("git rebase -i succeeded under the profile:\n%s", out)
	}
	if !strings.Contains(out, "git rebase without -i") {
		t.Fatalf("git rebase -i's failure does not say what to do:\n%s", out)
	}
}

func TestManPrintsTextWithoutAPager(t *testing.T) {
	if _, err := exec.LookPath("man"); err != nil {
		t.Skip("man is not installed")
	}
	if err := exec.Command("man", "-w", "ls").Run(); err != nil {
		t.Skip("the ls manual page is not installed")
	}
	out, err := onTerminal(t, t.TempDir(), profileEnv(t), "man", "ls")
	if err != nil {
		t.Fatalf("man ls: %v\n%s", err, out)
	}
	if !strings.Contains(out, "NAME") && !strings.Contains(out, "N\bNA\bAM\bME\bE") {
		t.Fatalf("man ls printed no manual page:\n%s", out)
	}
}
