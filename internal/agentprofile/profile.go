// Package agentprofile owns the agent profile: the environment a command gets
// when nobody is at its terminal (an MCP session, `hangdog run --json`, a
// harness's hook), chosen so that the common hangs never start. A pager that
// waits for a key, an editor nobody will close, a credential prompt nobody
// will answer: each is switched off here, and the watchdog is left for what
// the profile cannot prevent.
//
// The profile only fills in: a variable the caller's environment already
// sets is the user's choice and is kept, and the setting tasks.agentProfile
// turns the whole profile off.
package agentprofile

import "strings"

// Var is one variable of the profile and the hang it prevents.
type Var struct {
	Name     string
	Value    string
	Prevents string // the hang, in words, for README and `--help`
}

// noEditor is an editor that fails at once with a message saying what to do
// instead. It is a shell command because every program that honours EDITOR
// either runs it through sh or splits it as sh would; the file name it is
// given arrives as $1 and is named in the message.
const noEditor = `sh -c 'echo "hangdog: nobody can use an editor here (agent profile): pass the text on the command line instead, e.g. git commit -m MESSAGE, or write the file ${1:-} directly" >&2; exit 1' editor`

// noSequenceEditor is noEditor's counterpart for `git rebase -i`, whose
// todo list is edited by GIT_SEQUENCE_EDITOR.
const noSequenceEditor = `sh -c 'echo "hangdog: nobody can edit the rebase todo list here (agent profile): use git rebase without -i, or script it with GIT_SEQUENCE_EDITOR=\"sed -i ...\"" >&2; exit 1' editor`

// Vars is the profile, in the order README lists it.
var Vars = []Var{
	{"PAGER", "cat", "a pager waiting for a key: man, psql, journalctl and most tools that page through $PAGER"},
	{"GIT_PAGER", "cat", "git log, diff, show and blame opening less"},
	{"MANPAGER", "cat", "man opening less"},
	{"GH_PAGER", "cat", "gh (GitHub CLI) paging its output"},
	{"SYSTEMD_PAGER", "cat", "systemctl and journalctl opening less"},
	{"AWS_PAGER", "", "aws (CLI v2) paging its output"},
	{"GIT_EDITOR", noEditor, "git commit, merge and tag opening an editor nobody closes"},
	{"EDITOR", noEditor, "crontab -e, visudo and other tools opening an editor (or asking which editor to use)"},
	{"VISUAL", noEditor, "tools that prefer $VISUAL to $EDITOR opening an editor"},
	{"GIT_SEQUENCE_EDITOR", noSequenceEditor, "git rebase -i opening its todo list in an editor"},
	{"GIT_MERGE_AUTOEDIT", "no", "git merge opening an editor for the merge commit's message"},
	{"GIT_TERMINAL_PROMPT", "0", "git asking for a username or password over https"},
	{"GIT_SSH_COMMAND", "ssh -o BatchMode=yes", "git over ssh asking for a password, a passphrase or to trust a host key"},
	{"DEBIAN_FRONTEND", "noninteractive", "apt-get and dpkg asking debconf questions"},
	{"NPM_CONFIG_YES", "true", "npx asking \"Ok to proceed? (y)\" before it installs a package"},
	{"PIP_NO_INPUT", "1", "pip asking for credentials of a package index"},
	{"GH_PROMPT_DISABLED", "1", "gh asking interactive questions"},
	{"COMPOSER_NO_INTERACTION", "1", "composer asking questions"},
	{"TF_INPUT", "0", "terraform asking for the value of a variable"},
}

// Apply returns environ with every profile variable it does not set added.
// environ is left as it is; a variable set to anything, even empty, is kept.
func Apply(environ []string) []string {
	set := make(map[string]bool, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	out := make([]string, len(environ), len(environ)+len(Vars))
	copy(out, environ)
	for _, v := range Vars {
		if !set[v.Name] {
			out = append(out, v.Name+"="+v.Value)
		}
	}
	return out
}
