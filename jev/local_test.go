package jev

import (
	"context"
	"strings"
	"testing"
	"time"
)

// idle is a complete sample of a process tree doing nothing at all.
func idle(cmd string, elapsed, silence time.Duration) State {
	return State{Command: cmd, Elapsed: elapsed, SinceOutput: silence, SampleComplete: true, Procs: 1, OutputBytes: 100}
}

func askLocal(t *testing.T, st State) Verdict {
	t.Helper()
	as, err := NewLocal().Ask(context.Background(), st, Questions())
	if err != nil {
		t.Fatalf("local Ask: %v", err)
	}
	if len(as) != 4 {
		t.Fatalf("local Ask gave %d answers, want 4", len(as))
	}
	for _, a := range as {
		if a.Backend != LocalName {
			t.Errorf("answer %s has backend %q", a.ID, a.Backend)
		}
		if !a.Abstain && len(a.Evidence) == 0 {
			t.Errorf("answer %s carries no evidence", a.ID)
		}
	}
	return verdictOf(as)
}

func evidenceHas(a Answer, words ...string) bool {
	all := strings.ToLower(strings.Join(a.Evidence, " | "))
	for _, w := range words {
		if !strings.Contains(all, strings.ToLower(w)) {
			return false
		}
	}
	return true
}

func TestLocalJudge(t *testing.T) {
	type want struct {
		status        string  // "" = abstain
		minConf       float64 // status confidence at least
		maxConf       float64 // at most (0 = no limit)
		evidence      []string
		persistentMin float64
		persistentMax float64 // 0 = no limit
		stopMin       float64
		stopMax       float64 // 0 = no limit
		expect        string  // "" = don't care
	}
	prompt := idle("rm -i important.txt", 20*time.Second, 15*time.Second)
	prompt.ReadingTTY, prompt.TTYMode, prompt.ForegroundComm = true, "line", "rm"
	prompt.LastLine = "rm: remove regular file 'important.txt'? "

	promptPerson := prompt
	promptPerson.Interactive = true

	pager := idle("git log", 10*time.Second, 9*time.Second)
	pager.ReadingTTY, pager.TTYMode, pager.ForegroundComm = true, "raw", "less"
	pager.LastLine = ":"

	editor := idle("git commit", 30*time.Second, 29*time.Second)
	editor.ReadingTTY, editor.TTYMode, editor.ForegroundComm = true, "raw", "vim"

	secretPrompt := idle("sudo apt-get update", 20*time.Second, 19*time.Second)
	secretPrompt.ReadingTTY, secretPrompt.TTYMode, secretPrompt.ForegroundComm = true, "secret", "sudo"
	secretPrompt.LastLine = "[sudo] password for dev: "

	catNoFile := idle("cat", 40*time.Second, 40*time.Second)
	catNoFile.ReadingTTY, catNoFile.TTYMode, catNoFile.ForegroundComm = true, "line", "cat"

	silent := idle("./deploy.sh", 10*time.Minute, 6*time.Minute)

	silentEarly := idle("./deploy.sh", 20*time.Second, 10*time.Second)

	quickButSilent := idle("git status", 8*time.Minute, 8*time.Minute)

	busy := idle("./crunch --all", 5*time.Minute, 3*time.Minute)
	busy.CPUPercent, busy.AnyRunning = 99, true

	// A loop's next `sleep 1` caught runnable at the sampling instant, with
	// next to no CPU over the window: a start, not work.
	caughtStarting := idle("busybox sh -c 'while true; do busybox sleep 1; done'", 6*time.Second, 6*time.Second)
	caughtStarting.CPUPercent, caughtStarting.AnyRunning = 0.3, true

	// Runnable and given a little CPU (a starved worker on a loaded machine).
	starved := idle("./crunch --all", 6*time.Second, 6*time.Second)
	starved.CPUPercent, starved.AnyRunning = 3, true

	retry := idle("./connect.sh", 2*time.Minute, time.Second)
	retry.NewOutputBytes, retry.NewLines, retry.NewDistinctLines, retry.Repetition = 900, 30, 1, 0.97
	retry.Tail = []string{"connection refused, retrying in 1s", "connection refused, retrying in 1s"}

	building := idle("make -j8", 2*time.Minute, time.Second)
	building.NewOutputBytes, building.NewLines, building.NewDistinctLines, building.Repetition = 4000, 40, 40, 0.05
	building.CPUPercent = 180

	devServer := idle("npm run dev", 2*time.Minute, 90*time.Second)
	devServer.Listening = []string{"127.0.0.1:3000"}

	devServerPerson := devServer
	devServerPerson.Interactive = true

	listeningUnknown := idle("./bin/app --port 8080", time.Minute, 50*time.Second)
	listeningUnknown.Listening = []string{"0.0.0.0:8080"}

	follow := idle("tail -f /var/log/syslog", 3*time.Minute, 2*time.Minute)

	sleeping := idle("sleep 330 && make", 2*time.Minute, 2*time.Minute)
	sleeping.TimerSleep, sleeping.ForegroundComm = true, "sleep"

	connecting := idle("curl https://10.255.255.1/", time.Minute, time.Minute)
	connecting.Connecting = []string{"10.255.255.1:443"}

	incomplete := State{Command: "./x", Elapsed: 10 * time.Minute, SinceOutput: 10 * time.Minute}

	spinner := idle("npm install", time.Minute, 0)
	spinner.NewOutputBytes, spinner.CPUPercent = 120, 30

	tests := []struct {
		name string
		st   State
		want want
	}{
		{"prompt on the terminal, agent", prompt, want{status: Waiting, minConf: 0.95, evidence: []string{"prompt", "remove regular file", "nobody"}, stopMin: 0.95, persistentMax: 0.2}},
		{"prompt on the terminal, person", promptPerson, want{status: Waiting, minConf: 0.9, evidence: []string{"waiting for you"}, stopMax: 0.1}},
		{"pager in raw mode", pager, want{status: Waiting, minConf: 0.95, evidence: []string{"pager", "`less`"}, stopMin: 0.95, persistentMax: 0.1, expect: ExpectNever}},
		{"editor in raw mode", editor, want{status: Waiting, minConf: 0.95, evidence: []string{"editor", "`vim`"}, stopMin: 0.95, expect: ExpectNever}},
		{"secret prompt", secretPrompt, want{status: Waiting, minConf: 0.95, evidence: []string{"echo off", "password for dev"}, stopMin: 0.95}},
		{"cat with no file", catNoFile, want{status: Waiting, minConf: 0.9, evidence: []string{"no file given"}, stopMin: 0.9, expect: ExpectNever}},
		{"silent, idle, no timer", silent, want{status: Stuck, minConf: 0.8, maxConf: 0.89, evidence: []string{"no output for 6m", "no cpu"}, stopMin: 0.75}},
		{"silent for seconds only", silentEarly, want{status: Stuck, maxConf: 0.55, stopMax: 0.55}},
		{"a seconds command silent for minutes", quickButSilent, want{status: Stuck, minConf: 0.85, evidence: []string{"quick command", "yet it has run 8m"}}},
		{"CPU busy without output", busy, want{status: Progressing, minConf: 0.85, evidence: []string{"CPU 99%"}, stopMax: 0.1}},
		{"a process caught starting, no CPU", caughtStarting, want{status: Stuck, maxConf: 0.55}},
		{"a runnable process given a little CPU", starved, want{status: Progressing, minConf: 0.6}},
		{"repeating retry output", retry, want{status: Looping, minConf: 0.9, evidence: []string{"only 1 distinct", "connection refused"}, stopMin: 0.8}},
		{"varied build output", building, want{status: Progressing, minConf: 0.9, stopMax: 0.1, expect: ExpectMinutes}},
		{"npm run dev listening", devServer, want{status: Waiting, minConf: 0.9, evidence: []string{"127.0.0.1:3000"}, persistentMin: 0.95, stopMin: 0.9, expect: ExpectNever}},
		{"npm run dev listening, person watching", devServerPerson, want{status: Waiting, persistentMin: 0.95, stopMax: 0.4}},
		{"unknown program listening", listeningUnknown, want{status: Waiting, persistentMin: 0.8}},
		{"tail -f quiet", follow, want{status: Waiting, minConf: 0.9, evidence: []string{"follows"}, persistentMin: 0.9, stopMin: 0.9, expect: ExpectNever}},
		{"declared sleep", sleeping, want{status: Progressing, minConf: 0.9, evidence: []string{"timer", "declares up to 5m30s"}, stopMax: 0.1}},
		{"connecting, no answer", connecting, want{status: Waiting, evidence: []string{"10.255.255.1:443"}, stopMax: 0.3}},
		{"incomplete sample", incomplete, want{status: "", stopMax: 0.2}},
		{"spinner with CPU", spinner, want{status: Progressing, minConf: 0.8, maxConf: 0.89, evidence: []string{"spinner"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := askLocal(t, tt.st)
			s := v.Status
			if tt.want.status == "" {
				if !s.Abstain {
					t.Errorf("status = %s (%.2f), want an abstention", s.Choice, s.Confidence)
				}
			} else if s.Abstain || s.Choice != tt.want.status {
				t.Errorf("status = %q abstain=%v (%v), want %q", s.Choice, s.Abstain, s.Evidence, tt.want.status)
			}
			if s.Confidence < tt.want.minConf || (tt.want.maxConf > 0 && s.Confidence > tt.want.maxConf) {
				t.Errorf("status confidence %.2f, want %.2f..%.2f (%v)", s.Confidence, tt.want.minConf, tt.want.maxConf, s.Evidence)
			}
			if len(tt.want.evidence) > 0 && !evidenceHas(s, tt.want.evidence...) {
				t.Errorf("status evidence %q lacks %q", s.Evidence, tt.want.evidence)
			}
			if p := v.Persistent.Value; p < tt.want.persistentMin || (tt.want.persistentMax > 0 && p > tt.want.persistentMax) {
				t.Errorf("persistent = %.2f, want %.2f..%.2f (%v)", p, tt.want.persistentMin, tt.want.persistentMax, v.Persistent.Evidence)
			}
			if p := v.Stop.Value; p < tt.want.stopMin || (tt.want.stopMax > 0 && p > tt.want.stopMax) {
				t.Errorf("stop = %.2f, want %.2f..%.2f (%v)", p, tt.want.stopMin, tt.want.stopMax, v.Stop.Evidence)
			}
			if tt.want.expect != "" && v.Expect.Choice != tt.want.expect {
				t.Errorf("expect = %q (%v), want %q", v.Expect.Choice, v.Expect.Evidence, tt.want.expect)
			}
		})
	}
}

// With a person at the terminal, a command blocked on it is waiting for
// them, whatever else the sample says.
func TestLocalNeverStuckOnTerminalWithPerson(t *testing.T) {
	for _, mode := range []string{"line", "raw", "secret", ""} {
		for _, last := range []string{"", "Continue? [y/N] ", "garbage"} {
			st := idle("./setup.sh", time.Hour, time.Hour)
			st.Interactive, st.ReadingTTY, st.TTYMode, st.LastLine = true, true, mode, last
			v := askLocal(t, st)
			if v.Status.Choice != Waiting {
				t.Errorf("mode %q last %q: status %s, want waiting", mode, last, v.Status.Choice)
			}
			if v.Stop.Value > 0.1 {
				t.Errorf("mode %q last %q: stop %.2f, want low", mode, last, v.Stop.Value)
			}
		}
	}
}

// Silence alone never reaches certainty, however long it lasts.
func TestLocalSilenceAloneIsModerate(t *testing.T) {
	for _, d := range []time.Duration{time.Minute, 10 * time.Minute, 24 * time.Hour} {
		v := askLocal(t, idle("./job", d, d))
		if v.Status.Confidence >= CertainConfidence {
			t.Errorf("silent %v: confidence %.2f, want below %.2f", d, v.Status.Confidence, CertainConfidence)
		}
	}
}

// Probabilities add up to one and the chosen one carries the confidence.
func TestLocalProbabilities(t *testing.T) {
	v := askLocal(t, idle("./job", time.Hour, time.Hour))
	sum := 0.0
	for _, p := range v.Status.Probabilities {
		sum += p
	}
	if sum < 0.999 || sum > 1.001 {
		t.Errorf("probabilities sum to %v: %v", sum, v.Status.Probabilities)
	}
	if v.Status.Probabilities[v.Status.Choice] != v.Status.Confidence {
		t.Errorf("probability of %s is %v, confidence %v", v.Status.Choice, v.Status.Probabilities[v.Status.Choice], v.Status.Confidence)
	}
}

// Output quoted as evidence is made printable and redacted.
func TestLocalEvidenceIsSafeToShow(t *testing.T) {
	st := idle("./login.sh", time.Minute, time.Minute)
	st.ReadingTTY, st.TTYMode = true, "line"
	st.LastLine = "\x1b]0;pwned\x07\x1b[2Jtoken=sk-abcdefghijklmnopqrstuvwx Continue? "
	v := askLocal(t, st)
	all := strings.Join(v.Status.Evidence, " ")
	if strings.ContainsAny(all, "\x1b\x07") {
		t.Errorf("evidence carries escape sequences: %q", all)
	}
	if strings.Contains(all, "sk-abcdefghijklmnopqrstuvwx") {
		t.Errorf("evidence carries a secret: %q", all)
	}
}

func TestLocalAbstainsOnUnknownQuestions(t *testing.T) {
	q := Question{ID: "mood", Kind: KindChoice, Choices: []string{"happy", "sad"}}
	as, err := NewLocal().Ask(context.Background(), idle("x", time.Minute, time.Minute), []Question{q})
	if err != nil || len(as) != 1 || !as[0].Abstain || as[0].ID != "mood" {
		t.Fatalf("Ask(unknown question) = %+v, %v; want one abstention", as, err)
	}
}

func TestLocalHonoursCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	as, err := NewLocal().Ask(ctx, idle("x", time.Minute, time.Minute), Questions())
	if err == nil || len(as) != 4 || !as[0].Abstain {
		t.Fatalf("Ask(cancelled) = %d answers, err %v; want 4 abstentions and an error", len(as), err)
	}
}
