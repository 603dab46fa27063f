package taskctl

import (
	"fmt"
	"strings"
	"testing"
)

type testCalls struct{}

func (testCalls) Logs(id string) string { return "LOGS(" + id + ")" }
func (testCalls) LogsFrom(id string, off int64) string {
	return fmt.Sprintf("LOGSFROM(%s, %d)", id, off)
}
func (testCalls) Send(id, text string) string { return "SEND(" + id + "," + text + ")" }
func (testCalls) Wait(id string) string       { return "WAIT(" + id + ")" }
func (testCalls) Kill(id string) string       { return "KILL(" + id + ")" }

// Each wait kind gets advice that fits it: typing an answer is offered only
// where an answer helps, and a secret is never asked for.
func TestNextStepsFitsTheWait(t *testing.T) {
	for _, tc := range []struct {
		wait      string
		want, not []string
	}{
		{WaitPrompt, []string{"SEND(t4,ANSWER\n)", "WAIT(t4)", "KILL(t4)", "command line"}, nil},
		{WaitPager, []string{"SEND(t4,q)", "--no-pager", "profile"}, []string{"ANSWER"}},
		{WaitEditor, []string{"KILL(t4)", "on the command line", "git commit -m"}, []string{"SEND("}},
		{WaitSecret, []string{"Never send a secret you were not given", "KILL(t4)"}, []string{"SEND("}},
		{WaitService, []string{"keeps running", "address", "KILL(t4)"}, []string{"SEND("}},
		{WaitREPL, []string{"script", "KILL(t4)"}, []string{"SEND("}},
		{WaitScreen, []string{"batch", "KILL(t4)"}, []string{"SEND("}},
		{WaitStdin, []string{"/dev/null", "SEND(t4,TEXT\n)"}, nil},
		{WaitMenu, []string{"SEND(t4,1\n)"}, nil},
		{WaitForm, []string{"SEND(t4,VALUE\n)", "-subj"}, nil},
		{"", []string{"LOGS(t4)", "SEND(t4,ANSWER\n)", "WAIT(t4)", "KILL(t4)"}, nil},
	} {
		got := NextSteps(tc.wait, "t4", testCalls{})
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("NextSteps(%q) = %q, want it to contain %q", tc.wait, got, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("NextSteps(%q) = %q, should not contain %q", tc.wait, got, n)
			}
		}
	}
}
