package jev

// Kind is the shape of an answer a Question asks for.
type Kind string

const (
	KindChoice Kind = "choice" // one of Question.Choices
	KindNoul   Kind = "noul"   // a likelihood in 0..1
	KindScore  Kind = "score"  // a number in Question.Min..Question.Max
)

// Question is one thing a backend is asked about a State.
type Question struct {
	ID      string   `json:"id"`
	Kind    Kind     `json:"kind"`
	Text    string   `json:"text"`
	Choices []string `json:"choices,omitempty"`
	// Criteria says, for each choice, when to pick it.
	Criteria map[string]string `json:"criteria,omitempty"`
	Min      float64           `json:"min,omitempty"`
	Max      float64           `json:"max,omitempty"`
}

// Answer is a backend's answer to one Question.
type Answer struct {
	ID            string             `json:"id"`
	Choice        string             `json:"choice,omitempty"`
	Confidence    float64            `json:"confidence"`
	Probabilities map[string]float64 `json:"probabilities,omitempty"`
	Value         float64            `json:"value"` // noul (0..1) or score
	// Evidence says in words what decided the answer.
	Evidence []string `json:"evidence,omitempty"`
	// Abstain means the backend could not answer; nothing may act on it.
	Abstain bool   `json:"abstain,omitempty"`
	Backend string `json:"backend,omitempty"`
}

// The answers to Status.
const (
	Progressing = "progressing"
	Waiting     = "waiting"
	Stuck       = "stuck"
	Looping     = "looping"
)

// The answers to Expect.
const (
	ExpectSeconds = "seconds"
	ExpectMinutes = "minutes"
	ExpectLong    = "long"
	ExpectNever   = "never"
)

// The four questions the watchdog asks every check. Treat them as read-only;
// Questions returns copies that are safe to change.
var (
	Status = Question{
		ID:      "status",
		Kind:    KindChoice,
		Text:    "What is the command doing right now?",
		Choices: []string{Progressing, Waiting, Stuck, Looping},
		Criteria: map[string]string{
			Progressing: "it is doing work: new output, CPU or disk activity, or sleeping on a timer it set",
			Waiting:     "it is blocked on something outside itself: input from the terminal, a pager or editor, a network peer, clients of a service",
			Stuck:       "nothing is happening and nothing it could be waiting for will change that: silent, idle, no timer, no I/O",
			Looping:     "it repeats the same work or output without getting closer to done: a retry loop, the same error again and again",
		},
	}
	Persistent = Question{
		ID:   "persistent",
		Kind: KindNoul,
		Text: "How likely is it that the command is a service that runs by design until stopped (a dev server, tail -f, a watch mode)?",
		Max:  1,
	}
	Stop = Question{
		ID:   "stop",
		Kind: KindNoul,
		Text: "How likely is it that the caller should stop waiting for the command now, because it will not finish on its own in useful time or is waiting for input nobody will give?",
		Max:  1,
	}
	Expect = Question{
		ID:      "expect",
		Kind:    KindChoice,
		Text:    "Judging from the command line alone, how long should it run?",
		Choices: []string{ExpectSeconds, ExpectMinutes, ExpectLong, ExpectNever},
		Criteria: map[string]string{
			ExpectSeconds: "it finishes in under a minute",
			ExpectMinutes: "it finishes within about ten minutes",
			ExpectLong:    "it may run longer than ten minutes but finishes by itself",
			ExpectNever:   "it does not finish by itself: a service, a follow or watch mode, a pager, an editor, an interactive program",
		},
	}
)

// Questions returns the four watchdog questions, in the order status,
// persistent, stop, expect.
func Questions() []Question {
	return []Question{Status.clone(), Persistent.clone(), Stop.clone(), Expect.clone()}
}

func (q Question) clone() Question {
	q.Choices = append([]string(nil), q.Choices...)
	if q.Criteria != nil {
		c := make(map[string]string, len(q.Criteria))
		for k, v := range q.Criteria {
			c[k] = v
		}
		q.Criteria = c
	}
	return q
}

// hasChoice reports whether c is one of q's choices.
func (q Question) hasChoice(c string) bool {
	for _, x := range q.Choices {
		if x == c {
			return true
		}
	}
	return false
}

// abstain is the answer given when a backend cannot answer q.
func abstain(q Question, backend, why string) Answer {
	a := Answer{ID: q.ID, Abstain: true, Backend: backend}
	if why != "" {
		a.Evidence = []string{why}
	}
	return a
}

// AbstainAll is the answer of a backend that could answer none of qs: one
// abstention per question, in order, each giving why as its evidence.
func AbstainAll(qs []Question, backend, why string) []Answer {
	out := make([]Answer, len(qs))
	for i, q := range qs {
		out[i] = abstain(q, backend, why)
	}
	return out
}
