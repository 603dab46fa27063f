package taskctl

import (
	"fmt"
	"strings"
)

// What to do with a run that was moved to the background, said once for
// every front end: the advice depends on what it waits for (typing "y" helps
// a prompt, not a pager, an editor or a password), the calls that carry it
// out are each front end's own.

// Calls writes the calls a front end offers on a task, as the reader would
// copy them: `hangdog bg send t4 'q'` for the CLI, bg_send {"id": "t4", "text": "q"}
// for an agent.
type Calls interface {
	Logs(id string) string
	// LogsFrom reads the output from byte offset off on (or whole, where
	// a front end has no offsets).
	LogsFrom(id string, off int64) string
	Send(id, text string) string // text exactly as it is to be typed
	Wait(id string) string
	Kill(id string) string
}

// The wait kinds NextSteps knows; the first nine are the watchdog's input
// kinds (supervisor/watchdog), carried in Detach.Wait.
const (
	WaitPrompt  = "prompt"
	WaitSecret  = "secret"
	WaitPager   = "pager"
	WaitEditor  = "editor"
	WaitREPL    = "repl"
	WaitMenu    = "menu"
	WaitForm    = "form"
	WaitStdin   = "stdin"
	WaitScreen  = "screen"
	WaitService = "service"
)

// NextSteps says what to do with task id, detached while it waited for wait
// (a wait kind, or "" when nothing was seen waiting), in calls c writes.
// How the task's end reaches the reader is each front end's to add.
func NextSteps(wait, id string, c Calls) string {
	var s string
	switch wait {
	case WaitPrompt:
		s = fmt.Sprintf("It is waiting for an answer. If you know the right one, type it with %s, then %s; "+
			"if not, stop it with %s. Next time give the answer on the command line (--yes, -y, < file).", c.Send(id, "ANSWER\n"), c.Wait(id), c.Kill(id))
	case WaitMenu:
		s = fmt.Sprintf("It is waiting for a choice. Send the number with %s, then %s; next time choose with a flag.",
			c.Send(id, "1\n"), c.Wait(id))
	case WaitForm:
		s = fmt.Sprintf("It is asking for one field of a form. Answer with %s (an empty line takes the default shown), "+
			"or stop it with %s and give the fields up front (a flag such as openssl's -subj, an answers file).", c.Send(id, "VALUE\n"), c.Kill(id))
	case WaitSecret:
		s = fmt.Sprintf("It is asking for a secret (a password or passphrase). Never send a secret you were not given: "+
			"stop it with %s and supply credentials another way (an agent, a token, a config file), or ask the user.", c.Kill(id))
	case WaitPager:
		s = fmt.Sprintf("A pager is showing its output: %s quits it and %s shows what it printed. "+
			"Next time turn the pager off (--no-pager, PAGER=cat, | cat); hangdog's agent profile sets the pagers to cat unless it is turned off.",
			c.Send(id, "q"), c.Logs(id))
	case WaitEditor:
		s = fmt.Sprintf("An editor is open and nobody can use it: stop it with %s and pass the text on the command line "+
			"(git commit -m MSG, GIT_EDITOR=true, GIT_SEQUENCE_EDITOR for rebase -i).", c.Kill(id))
	case WaitREPL:
		s = fmt.Sprintf("An interpreter is at its prompt: stop it with %s and give it a script or the statements on stdin "+
			"(python3 script.py, sqlite3 DB 'SQL;', echo EXPR | bc).", c.Kill(id))
	case WaitStdin:
		s = fmt.Sprintf("It is reading input with no prompt shown: type what it should read with %s, "+
			"or stop it with %s and run it with its input given (< file, or < /dev/null for none).", c.Send(id, "TEXT\n"), c.Kill(id))
	case WaitScreen:
		s = fmt.Sprintf("A full-screen program is running: stop it with %s and use its batch or plain-output mode.", c.Kill(id))
	case WaitService:
		s = fmt.Sprintf("It is a server and keeps running: reach it at the address in its output from your next calls; "+
			"%s shows its output, %s stops it when you are done.", c.Logs(id), c.Kill(id))
	default:
		s = fmt.Sprintf("It keeps running. Next: read new output with %s; if it asks for something, type the answer with %s; "+
			"wait for it with %s; stop it with %s.", c.Logs(id), c.Send(id, "ANSWER\n"), c.Wait(id), c.Kill(id))
	}
	return s
}

// CLICalls are the commands a person, a script or a model using a shell
// types on a task.
type CLICalls struct{}

func (CLICalls) Logs(id string) string { return fmt.Sprintf("`hangdog bg logs %s -f`", id) }

// LogsFrom: bg logs prints a log whole; the note has said which bytes.
func (CLICalls) LogsFrom(id string, _ int64) string {
	return fmt.Sprintf("`hangdog bg logs %s`", id)
}
func (CLICalls) Wait(id string) string { return fmt.Sprintf("`hangdog bg wait %s`", id) }
func (CLICalls) Kill(id string) string { return fmt.Sprintf("`hangdog bg kill %s`", id) }

// Send writes text with bg send's escapes, in single quotes for the shell.
func (CLICalls) Send(id, text string) string {
	r := strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`, "\t", `\t`, "'", `'\''`)
	return fmt.Sprintf("`hangdog bg send %s '%s'`", id, r.Replace(text))
}
