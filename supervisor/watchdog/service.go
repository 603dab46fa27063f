package watchdog

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/supervisor/activity"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

// persistentAt: a Persistent answer at or above this says the command is a
// service that runs by design.
const persistentAt = 0.7

// serviceView is what the judge (or, before the first due check, the
// command line) said about whether the command runs until stopped. It is kept
// between checks so a fast check, which asks no model, still knows.
type serviceView struct {
	persistent      bool // Persistent ≥ persistentAt
	persistentKnown bool // some answer to Persistent was given
	never           bool // Expect never
	why             string
}

// serviceFromCommand asks the local judge about the command line alone, so a
// dev server is known as one before its first due check.
func serviceFromCommand(command string) serviceView {
	var s serviceView
	as, err := jev.NewLocal().Ask(context.Background(), jev.State{Command: command}, []jev.Question{jev.Persistent, jev.Expect})
	if err != nil || len(as) != 2 {
		return s
	}
	s.update(&jev.Verdict{Persistent: as[0], Expect: as[1]})
	return s
}

func (s *serviceView) update(v *jev.Verdict) {
	if v == nil {
		return
	}
	if v.Persistent.Abstain && (v.Expect.Abstain || v.Expect.Choice == "") {
		return // nothing new: keep the last word
	}
	why := ""
	if !v.Persistent.Abstain {
		s.persistentKnown = true
		s.persistent = v.Persistent.Value >= persistentAt
		if s.persistent {
			why = firstEvidence(v.Persistent, "the decision model judges it a service")
		}
	}
	if !v.Expect.Abstain && v.Expect.Choice != "" {
		s.never = v.Expect.Choice == jev.ExpectNever
		if s.never && why == "" {
			why = firstEvidence(v.Expect, "expected never to finish by itself")
		}
	}
	s.why = why
}

// isService: it listens, or the judge says it runs by design (a dev server,
// a follow or watch mode). "Never finishes" counts only when the judge gave no
// Persistent answer, and not while the program reads the terminal: pagers,
// editors, REPLs and ssh sessions never finish either, yet they are not
// services, and stopping one nobody can answer is fine.
func (s serviceView) isService(t sampler.Tree, treeOK bool) (bool, string) {
	switch {
	case treeOK && len(t.Listening) > 0:
		return true, "listening on " + addresses(t.Listening)
	case s.persistent:
		return true, s.why
	case !s.persistentKnown && s.never && !(treeOK && t.ReadingTTY):
		return true, s.why
	}
	return false, ""
}

func addresses(socks []sampler.Socket) string {
	seen := map[string]bool{}
	var out []string
	for _, s := range socks {
		if !seen[s.Local] {
			seen[s.Local] = true
			out = append(out, s.Local)
		}
	}
	if len(out) > 3 {
		out = append(out[:3], "…")
	}
	return strings.Join(out, ", ")
}

// readyLine matches the lines dev servers and watch modes print once they are
// up. Compiled on first use: the supervisor must stay small while idle.
var readyLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(\bready (in|on|at)\b|\bready( -|!)|server is ready|listening (on|at)\b|running (at|on)\b|\bserving\b|server (started|running)|started server|starting development server|available on\b|compiled successfully|watching for (file )?changes|local:\s+https?://|press ctrl[+-]c to (quit|stop|exit))`)
})

var urlInLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`https?://[A-Za-z0-9.\-\[\]:]+(:\d+)?/?`)
})

// readySignal looks through the recent output for a ready line and returns it
// with the address it names, if any.
func readySignal(out activity.Stats) (line, addr string, ok bool) {
	lines := append(append([]string(nil), out.Tail...), out.LastLine)
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if !readyLine().MatchString(l) {
			continue
		}
		return l, urlInLine().FindString(l), true
	}
	return "", "", false
}

// serviceUp says whether a service is ready for clients, and where.
func serviceUp(t sampler.Tree, treeOK bool, out activity.Stats) (up bool, where string) {
	if treeOK && len(t.Listening) > 0 {
		return true, "listening on " + addresses(t.Listening)
	}
	if line, addr, ok := readySignal(out); ok {
		if addr != "" {
			return true, "ready at " + addr // the pattern admits only address characters
		}
		return true, "ready (" + quote(line, 80) + ")"
	}
	return false, ""
}

func firstEvidence(a jev.Answer, fallback string) string {
	if len(a.Evidence) > 0 && a.Evidence[0] != "" {
		return a.Evidence[0]
	}
	return fallback
}
