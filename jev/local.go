package jev

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hangdog/hangdog/internal/termtext"
)

// LocalName is the Backend name of the embedded judge.
const LocalName = "local"

// NewLocal returns the embedded judge: it answers from the State and the
// command table alone, with no network, in microseconds.
//
// Its confidence is calibrated to the evidence: a process blocked reading the
// terminal with a prompt as the last line, while nobody can type, is certain
// (≥ 0.95); silence alone is never more than moderate (≤ 0.85), however long.
func NewLocal() Backend { return localJudge{} }

type localJudge struct{}

func (localJudge) Name() string { return LocalName }

// Ask answers status, persistent, stop and expect; it abstains on any other
// question.
func (localJudge) Ask(ctx context.Context, st State, qs []Question) ([]Answer, error) {
	if err := ctx.Err(); err != nil {
		return AbstainAll(qs, LocalName, "cancelled"), fmt.Errorf("local judge: %w", err)
	}
	v := judgeLocally(st)
	out := make([]Answer, len(qs))
	for i, q := range qs {
		switch q.ID {
		case Status.ID:
			out[i] = v.Status
		case Persistent.ID:
			out[i] = v.Persistent
		case Stop.ID:
			out[i] = v.Stop
		case Expect.ID:
			out[i] = v.Expect
		default:
			out[i] = abstain(q, LocalName, "the local judge does not answer "+q.ID)
		}
	}
	return out, nil
}

// scene is one State read together with what its command line says.
type scene struct {
	st           State
	facts        *commandFacts
	blockedOnTTY bool // a complete sample shows it blocked reading the terminal
	silent       bool // no output since the last check
}

func judgeLocally(st State) Verdict {
	s := &scene{st: st, facts: analyzeCommand(st.Command)}
	s.runningExpect()
	s.blockedOnTTY = st.SampleComplete && st.ReadingTTY
	s.silent = st.NewOutputBytes <= 0
	status := s.status()
	persistent := s.persistent()
	return Verdict{
		Status:     status,
		Persistent: persistent,
		Stop:       s.stop(status, persistent),
		Expect:     s.expect(),
	}
}

// choiceAnswer spreads the confidence not given to the choice evenly over the
// others.
func choiceAnswer(q Question, choice string, conf float64, evidence []string) Answer {
	probs := make(map[string]float64, len(q.Choices))
	rest := (1 - conf) / float64(len(q.Choices)-1)
	for _, c := range q.Choices {
		probs[c] = rest
	}
	probs[choice] = conf
	return Answer{ID: q.ID, Choice: choice, Confidence: conf, Probabilities: probs, Evidence: evidence, Backend: LocalName}
}

// noulAnswer is a likelihood v, held with confidence conf.
func noulAnswer(q Question, v, conf float64, evidence []string) Answer {
	return Answer{ID: q.ID, Value: v, Confidence: conf, Evidence: evidence, Backend: LocalName}
}

func (s *scene) status() Answer {
	st := s.st
	if !st.SampleComplete {
		if !s.silent {
			return choiceAnswer(Status, Progressing, 0.7, []string{
				fmt.Sprintf("%s of new output", fmtBytes(st.NewOutputBytes)),
				"the process sample is incomplete, so only output was judged",
			})
		}
		return abstain(Status, LocalName, "the process sample is incomplete, and missing evidence never counts as idle")
	}
	if s.blockedOnTTY {
		return s.waitingOnTerminal()
	}
	if !s.silent {
		return s.withOutput()
	}
	return s.quiet()
}

// waitingOnTerminal judges a process blocked reading the terminal: it waits
// for input, which only a person can give.
func (s *scene) waitingOnTerminal() Answer {
	st := s.st
	who := s.foreground()
	var ev []string
	conf := 0.88
	last := strings.TrimRight(st.LastLine, "\r\n")
	commKnow := classify(invocation{argv: []string{st.ForegroundComm}, stdinTTY: true, stdoutTTY: true})
	waiter, hasWaiter := s.facts.personWaiter()
	switch {
	case st.TTYMode == "secret":
		conf = 0.97
		e := who + " is reading the terminal with echo off (a secret prompt)"
		if strings.TrimSpace(last) != "" {
			e += " and the last line is a prompt: " + quoteOutput(last, 120)
		}
		ev = append(ev, e)
	case st.TTYMode == "raw" && (commKnow.cat == catPager || hasWaiter && waiter.know.cat == catPager):
		conf = 0.97
		ev = append(ev, fmt.Sprintf("%s is a pager reading the terminal in raw mode, waiting for a key", who))
	case st.TTYMode == "raw" && (commKnow.cat == catEditor || hasWaiter && waiter.know.cat == catEditor):
		conf = 0.97
		ev = append(ev, fmt.Sprintf("%s is an editor reading the terminal in raw mode, waiting for a person", who))
	case st.TTYMode == "raw":
		conf = 0.93
		ev = append(ev, fmt.Sprintf("%s reads the terminal in raw mode (a full-screen or key-driven program)", who))
	case strings.TrimSpace(last) != "":
		conf = 0.95
		if looksLikePrompt(last) {
			conf = 0.97
		}
		ev = append(ev, fmt.Sprintf("%s is blocked reading the terminal and the last line is a prompt: %s", who, quoteOutput(last, 120)))
	case hasWaiter:
		conf = 0.95
		ev = append(ev, fmt.Sprintf("%s is blocked reading the terminal: %s", who, waiter.describe()))
	default:
		ev = append(ev, fmt.Sprintf("%s is blocked reading the terminal, with no prompt shown", who))
	}
	if hasWaiter && !strings.Contains(ev[0], waiter.describe()) && (st.TTYMode == "raw" || waiter.know.cat == catReadsInput) {
		ev = append(ev, waiter.describe())
	}
	ev = append(ev, s.facts.prompts()...)
	if st.Interactive {
		ev = append(ev, "a person is at the terminal: it is waiting for you")
		conf = min(conf, 0.95)
	} else {
		ev = append(ev, "nobody can type into it: the caller is a program, not a person at a terminal")
	}
	return choiceAnswer(Status, Waiting, conf, ev)
}

// foreground names the process in evidence: "`rm`" or "the command".
func (s *scene) foreground() string {
	comm := strings.TrimSpace(Printable(s.st.ForegroundComm))
	if comm == "" {
		return "the command"
	}
	return "`" + termtext.Clip(comm, 32) + "`"
}

// withOutput judges a command that printed something since the last check.
func (s *scene) withOutput() Answer {
	st := s.st
	_, service := s.facts.service()
	service = service || len(st.Listening) > 0
	advancing, advLine := false, ""
	if !service && st.NewLines >= 3 && st.Repetition >= 0.8 {
		advLine, advancing = advancingNumbers(st.Tail)
	}
	if advancing {
		return choiceAnswer(Status, Progressing, 0.85, []string{
			fmt.Sprintf("%d new lines that differ only in numbers, and one keeps growing: %s", st.NewLines, quoteOutput(advLine, 100)),
		})
	}
	if !service && st.NewLines >= 3 && st.Repetition >= 0.8 &&
		st.NewDistinctLines <= max(2, st.NewLines/5) {
		conf := 0.75 + (min(st.Repetition, 1) - 0.8)
		if errorish(st.Tail) {
			conf += 0.03
		}
		conf = min(conf, 0.95)
		ev := []string{fmt.Sprintf("%d new lines but only %d distinct (repetition %.2f)", st.NewLines, st.NewDistinctLines, st.Repetition)}
		if line := lastNonEmpty(st.Tail); line != "" {
			ev = append(ev, "the output repeats lines like "+quoteOutput(line, 100))
		}
		return choiceAnswer(Status, Looping, conf, ev)
	}
	// Lines that only restate earlier ones (a heartbeat with a new time, an
	// elapsed counter) say nothing new: a wait, not progress (advancing.go).
	if line, ok := restating(st.Tail, st.NewLines); !service && ok && st.Repetition >= 0.6 && st.CPUPercent < 5 && st.DiskBytes == 0 {
		return choiceAnswer(Status, Looping, 0.82, []string{
			fmt.Sprintf("%d new lines that only restate earlier ones (times, elapsed counters and spinner frames aside): %s", st.NewLines, quoteOutput(line, 100)),
		})
	}
	// A line redrawn in place that says what it said at the last check.
	if !service && st.NewLines == 0 && st.Restated && st.CPUPercent < 5 && st.DiskBytes == 0 {
		return choiceAnswer(Status, Looping, 0.82, []string{
			fmt.Sprintf("%s of output redrew the current line, which says what it said at the last check (a spinner or an elapsed counter over a wait): %s", fmtBytes(st.NewOutputBytes), quoteOutput(st.LastLine, 100)),
		})
	}
	var ev []string
	conf := 0.92
	switch {
	case st.NewLines == 0:
		conf = 0.75
		ev = append(ev, fmt.Sprintf("%s of output changed the current line but added no new lines (a spinner or progress bar)", fmtBytes(st.NewOutputBytes)))
		if st.CPUPercent >= 5 || st.DiskBytes > 64<<10 {
			conf = 0.85
			ev = append(ev, s.activity())
		}
	case st.Repetition >= 0.5:
		conf = 0.8
		ev = append(ev, fmt.Sprintf("%d new lines, %d distinct (repetition %.2f)", st.NewLines, st.NewDistinctLines, st.Repetition))
	default:
		ev = append(ev, fmt.Sprintf("%d new lines of output since the last check (%d distinct)", st.NewLines, st.NewDistinctLines))
	}
	if service && len(st.Listening) > 0 {
		ev = append(ev, "it listens on "+listJoin(st.Listening)+": a service logging its work")
	}
	return choiceAnswer(Status, Progressing, conf, ev)
}

// runnableMinCPU is the CPU (% of a core over the window) a process caught
// runnable must also have used for its state to count as work. Runnable is
// what one instant shows, work is what the window measured: a loop's next
// `sleep 1`, forked and exec'd just as the sample is taken, is runnable for
// a moment and uses a fraction of a percent; a worker the machine starves
// still gets a few percent.
const runnableMinCPU = 1.0

// quiet judges a command that printed nothing since the last check.
func (s *scene) quiet() Answer {
	st := s.st
	silence := "no output for " + fmtDuration(st.SinceOutput)
	svc, isService := s.facts.service()
	switch {
	case len(st.Listening) > 0:
		return choiceAnswer(Status, Waiting, 0.92, []string{
			"it listens on " + listJoin(st.Listening) + " and is quiet: a service waiting for requests", silence,
		})
	case isService && svc.know.cat == catFollow:
		return choiceAnswer(Status, Waiting, 0.9, []string{svc.describe() + "; quiet means nothing new has happened", silence})
	case isService && st.CPUPercent < 5 && st.DiskBytes == 0:
		return choiceAnswer(Status, Waiting, 0.75, []string{svc.describe() + ", but it is not listening yet", silence})
	}
	if a, ok := s.quietRetry(); ok && st.CPUPercent < 50 {
		return a
	}
	switch {
	case st.CPUPercent >= 5:
		conf := 0.85
		if st.CPUPercent >= 50 {
			conf = 0.9
		}
		if st.SinceOutput > 10*time.Minute {
			conf = 0.75 // long silent CPU work may be a busy loop
		}
		return choiceAnswer(Status, Progressing, conf, []string{fmt.Sprintf("CPU %.0f%% with %s", st.CPUPercent, silence)})
	case st.DiskBytes > 64<<10:
		return choiceAnswer(Status, Progressing, 0.85, []string{fmt.Sprintf("read or wrote %s since the last check, with %s", fmtBytes(st.DiskBytes), silence)})
	case st.TimerSleep:
		ev := []string{"it is sleeping on a timer", silence}
		conf := 0.8
		if s.facts.bounded && st.Elapsed < s.facts.bound {
			conf = 0.9
			ev = append(ev, s.boundEvidence())
		}
		return choiceAnswer(Status, Progressing, conf, ev)
	case len(st.Connecting) > 0:
		return choiceAnswer(Status, Waiting, 0.8, []string{"it is connecting to " + listJoin(st.Connecting) + " and no answer has come", silence})
	case st.Established > 0 && st.PeerSilent > 0:
		// A silent peer is stuck (issue 23, cause 3): a request out and
		// nothing back since the last check says the peer does not answer.
		return choiceAnswer(Status, Stuck, 0.85, []string{fmt.Sprintf("%d established network connection(s): a request was sent and nothing has been received for %s: the peer does not answer", st.Established, fmtDuration(st.PeerSilent)), silence})
	case st.Established > 0:
		return choiceAnswer(Status, Waiting, 0.7, []string{fmt.Sprintf("%d established network connection(s), idle: waiting on a peer", st.Established), silence})
	case (st.AnyRunning && st.CPUPercent >= runnableMinCPU) || st.DiskBytes > 0:
		return choiceAnswer(Status, Progressing, 0.6, []string{"a process is runnable or did a little I/O", silence})
	}
	// Idle: nothing running, no timer, no I/O, no sockets, not reading the terminal.
	conf := 0.5
	switch {
	case st.SinceOutput >= 5*time.Minute:
		conf = 0.85
	case st.SinceOutput >= 2*time.Minute:
		conf = 0.75
	case st.SinceOutput >= 30*time.Second:
		conf = 0.6
	}
	ev := []string{silence + ", no CPU, no disk I/O, no timer, no network activity, not reading the terminal"}
	if s.facts.expect == ExpectSeconds && st.Elapsed > 5*time.Minute {
		conf = min(conf+0.05, 0.85)
		ev = append(ev, s.facts.expectWhy+fmt.Sprintf(", yet it has run %s", fmtDuration(st.Elapsed)))
	}
	if s.facts.bounded && st.Elapsed < s.facts.bound {
		ev = append(ev, s.boundEvidence())
	}
	if r := runningEvidence(st.Running); r != "" {
		ev = append(ev, r)
	}
	return choiceAnswer(Status, Stuck, conf, ev)
}

func (s *scene) boundEvidence() string {
	return fmt.Sprintf("the command declares up to %s (%s have passed)", fmtDuration(s.facts.bound), fmtDuration(s.st.Elapsed))
}

// activity describes CPU and disk use in words.
func (s *scene) activity() string {
	return fmt.Sprintf("CPU %.0f%%, %s read or written", s.st.CPUPercent, fmtBytes(s.st.DiskBytes))
}

func (s *scene) persistent() Answer {
	st := s.st
	svc, isService := s.facts.service()
	listening := st.SampleComplete && len(st.Listening) > 0
	switch {
	case listening && isService:
		return noulAnswer(Persistent, 0.97, 0.95, []string{svc.describe(), "it listens on " + listJoin(st.Listening)})
	case listening && s.facts.expect != ExpectNever && s.mainKnown():
		return noulAnswer(Persistent, 0.35, 0.6, []string{"it listens on " + listJoin(st.Listening), "but " + s.facts.expectWhy + ", so it ends by itself"})
	case listening:
		return noulAnswer(Persistent, 0.85, 0.8, []string{"it listens on " + listJoin(st.Listening) + ": it serves until stopped"})
	case isService && svc.know.cat == catFollow:
		return noulAnswer(Persistent, 0.92, 0.9, []string{svc.describe()})
	case isService:
		return noulAnswer(Persistent, 0.85, svc.know.confidence(), []string{svc.describe()})
	case s.facts.loops.forever:
		return noulAnswer(Persistent, 0.75, 0.7, []string{"a `while true` loop with no break runs until stopped"})
	}
	if p, ok := s.facts.personWaiter(); ok {
		return noulAnswer(Persistent, 0.05, 0.9, []string{p.describe() + ": not a service"})
	}
	for _, p := range s.facts.parts {
		if p.know.cat.persistent() { // a service under a timeout
			return noulAnswer(Persistent, 0.5, 0.5, []string{p.describe()})
		}
	}
	if s.mainKnown() {
		return noulAnswer(Persistent, 0.05, s.facts.expectConf, []string{s.facts.expectWhy})
	}
	return noulAnswer(Persistent, 0.1, 0.5, []string{"nothing says it runs by design"})
}

// mainKnown reports whether the command table knows what decided Expect.
func (s *scene) mainKnown() bool { return s.facts.expectConf >= 0.65 }

func (s *scene) stop(status, persistent Answer) Answer {
	st := s.st
	if status.Abstain {
		return noulAnswer(Stop, 0.1, 0.5, []string{"the process sample is incomplete: no reason to stop waiting yet"})
	}
	switch {
	case s.blockedOnTTY && st.Interactive:
		return noulAnswer(Stop, 0.05, status.Confidence, []string{"it waits for input and a person is at the terminal to give it"})
	case s.blockedOnTTY && st.ReadTimeout > 0 && st.SinceOutput < st.ReadTimeout+2*time.Second:
		// Counted from the prompt, printed just before the read began.
		return noulAnswer(Stop, 0.2, 0.8, []string{fmt.Sprintf("its read of the terminal gives up by itself after %s", fmtDuration(st.ReadTimeout))})
	case s.blockedOnTTY:
		v := 0.9
		if status.Confidence >= 0.95 {
			v = 0.97
		}
		return noulAnswer(Stop, v, status.Confidence, []string{"it waits for input nobody will type: it will not finish by itself"})
	case persistent.Value >= 0.85:
		if st.Interactive {
			return noulAnswer(Stop, 0.3, 0.6, []string{"it runs until stopped, and a person is watching it"})
		}
		if svc, ok := s.facts.service(); ok && svc.know.cat == catServer && len(st.Listening) == 0 && st.Elapsed < 30*time.Second {
			return noulAnswer(Stop, 0.5, 0.5, []string{svc.describe() + "; it is still starting (not listening yet)"})
		}
		return noulAnswer(Stop, 0.92, persistent.Confidence, []string{"it runs until stopped by design: waiting for it to finish would never end"})
	}
	switch status.Choice {
	case Stuck:
		return noulAnswer(Stop, round2(status.Confidence*0.95), status.Confidence, []string{"it looks stuck: " + firstOf(status.Evidence)})
	case Looping:
		return noulAnswer(Stop, round2(status.Confidence*0.9), status.Confidence, []string{"it looks like a loop: " + firstOf(status.Evidence)})
	case Waiting:
		if st.SinceOutput > 5*time.Minute {
			return noulAnswer(Stop, 0.6, 0.6, []string{"it has waited on the network for " + fmtDuration(st.SinceOutput)})
		}
		return noulAnswer(Stop, 0.2, 0.6, []string{"it waits on something that may still come"})
	}
	return noulAnswer(Stop, 0.05, status.Confidence, []string{"it is making progress"})
}

func (s *scene) expect() Answer {
	f := s.facts
	return choiceAnswer(Expect, f.expect, f.expectConf, []string{f.expectWhy})
}

// looksLikePrompt reports whether an unfinished line reads as a question.
func looksLikePrompt(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" {
		return false
	}
	lower := strings.ToLower(t)
	for _, k := range [...]string{"[y/n]", "(y/n)", "[yes/no]", "(yes/no)", "password", "passphrase", "press enter", "press any key", "continue?", "username", "enter "} {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return strings.ContainsRune("?:>]$#%»›)", rune(t[len(t)-1]))
}

// errorish reports whether recent output reads like failures being retried.
func errorish(tail []string) bool {
	for _, l := range tail[max(0, len(tail)-5):] {
		lower := strings.ToLower(l)
		for _, k := range [...]string{"error", "fail", "retry", "retrying", "refused", "timed out", "timeout", "unavailable", "cannot", "could not"} {
			if strings.Contains(lower, k) {
				return true
			}
		}
	}
	return false
}

func lastNonEmpty(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return lines[i]
		}
	}
	return ""
}

func listJoin(xs []string) string {
	const show = 3
	parts := make([]string, 0, show)
	for _, x := range xs[:min(len(xs), show)] {
		parts = append(parts, Printable(x))
	}
	s := strings.Join(parts, ", ")
	if len(xs) > show {
		s += fmt.Sprintf(" and %d more", len(xs)-show)
	}
	return s
}

func firstOf(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[0]
}

func round2(v float64) float64 { return float64(int(v*100+0.5)) / 100 }

// fmtBytes writes a byte count the way a person reads it.
func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
