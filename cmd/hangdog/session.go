package main

import (
	"fmt"
	"os"
	"regexp"
	"sync"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/cchook"
)

// sessionEnv names the caller's session when --session does not: a harness
// sets it once for every hangdog it starts.
const sessionEnv = "HANGDOG_SESSION"

// claudeSessionEnv is the id of the Claude Code session a process runs in
// (Claude Code sets it for its Bash tool, hooks and plugin monitors): the
// session is then claude-ID, the name the Claude Code hooks give it too.
const claudeSessionEnv = "CLAUDE_CODE_SESSION_ID"

var sessionName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@-]{0,99}$`)
})

// addSessionFlag registers --session on a command that starts, lists or
// reports tasks.
func addSessionFlag(cmd *cobra.Command, session *string) {
	cmd.Flags().StringVar(session, "session", "", "the session this call belongs to (default $"+sessionEnv+"): its tasks and news are its own")
}

// callerSession is the session a CLI call belongs to: --session, else
// $HANGDOG_SESSION, else the Claude Code session it runs in, else none.
func callerSession(flag string) (string, error) {
	name, from := flag, "--session"
	if name == "" {
		name, from = envSession()
	}
	if name != "" && !sessionName().MatchString(name) {
		return "", fmt.Errorf("%s %q: a session name is 1-100 letters, digits and . _ : @ -, starting with a letter or digit, e.g. build-42", from, name)
	}
	return name, nil
}

// envSession is the session named by the environment, and which variable
// named it: $HANGDOG_SESSION, else claude-$CLAUDE_CODE_SESSION_ID.
func envSession() (name, from string) {
	if name = os.Getenv(sessionEnv); name != "" {
		return name, sessionEnv
	}
	if name = claudeSession(); name != "" {
		return name, claudeSessionEnv
	}
	return "", sessionEnv
}

// claudeSession is the session of the Claude Code session this process
// runs in, claude-ID, or "" outside one.
func claudeSession() string {
	if id := os.Getenv(claudeSessionEnv); id != "" {
		return cchook.Owner(cchook.Key(id))
	}
	return ""
}

// callerScope is whose tasks and events a CLI call sees: its session's,
// else (no session) its project's, else with all everyone's.
func callerScope(flag string, all bool) (bgtasks.Scope, error) {
	if all {
		return bgtasks.Scope{All: true}, nil
	}
	owner, err := callerSession(flag)
	if err != nil {
		return bgtasks.Scope{}, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return bgtasks.Scope{}, fmt.Errorf("find the current directory: %w", err)
	}
	return bgtasks.Scope{Owner: owner, Project: bgtasks.ProjectOf(wd)}, nil
}
