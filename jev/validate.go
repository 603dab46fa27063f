package jev

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/hangdog/hangdog/internal/termtext"
)

const (
	maxEvidenceItems = 8
	maxEvidenceChars = 300
)

// ValidateAnswers matches a backend's answers to the questions and keeps only
// the sound ones: every question gets exactly one answer, in order; one that
// is missing, names a choice not offered, or carries a value out of range
// becomes an abstention, and the error lists why. Evidence is made printable,
// redacted and capped. A backend outside this package (a remote model, a
// helper process) runs what it was given through it before answering.
func ValidateAnswers(qs []Question, got []Answer, backend string) ([]Answer, error) {
	byID := make(map[string]Answer, len(got))
	for _, a := range got {
		if _, dup := byID[a.ID]; !dup {
			byID[a.ID] = a
		}
	}
	out := make([]Answer, len(qs))
	var problems []error
	for i, q := range qs {
		a, ok := byID[q.ID]
		if !ok {
			out[i] = abstain(q, backend, "no answer was given")
			problems = append(problems, fmt.Errorf("no answer to %q", q.ID))
			continue
		}
		a.Backend = backend
		a.Evidence = cleanEvidence(a.Evidence)
		if a.Abstain {
			out[i] = a
			continue
		}
		if err := checkAnswer(q, &a); err != nil {
			out[i] = abstain(q, backend, "the answer was unusable")
			problems = append(problems, fmt.Errorf("answer to %q: %w", q.ID, err))
			continue
		}
		out[i] = a
	}
	if len(problems) > 0 {
		return out, fmt.Errorf("%s: %d of %d answers unusable: %w", backend, len(problems), len(qs), errors.Join(problems...))
	}
	return out, nil
}

func checkAnswer(q Question, a *Answer) error {
	if !unit(a.Confidence) {
		return fmt.Errorf("confidence %v is outside 0..1", a.Confidence)
	}
	switch q.Kind {
	case KindChoice:
		if !q.hasChoice(a.Choice) {
			return fmt.Errorf("choice %q is not one of %s", termtext.Clip(Printable(a.Choice), 40), strings.Join(q.Choices, ", "))
		}
		for c, p := range a.Probabilities {
			if !q.hasChoice(c) {
				return fmt.Errorf("probability for %q, which is not one of %s", termtext.Clip(Printable(c), 40), strings.Join(q.Choices, ", "))
			}
			if !unit(p) {
				return fmt.Errorf("probability %v for %q is outside 0..1", p, c)
			}
		}
		a.Value = 0
	case KindNoul:
		if !unit(a.Value) {
			return fmt.Errorf("value %v is outside 0..1", a.Value)
		}
		if a.Confidence == 0 {
			a.Confidence = max(a.Value, 1-a.Value)
		}
		a.Choice, a.Probabilities = "", nil
	case KindScore:
		if math.IsNaN(a.Value) || a.Value < q.Min || a.Value > q.Max {
			return fmt.Errorf("value %v is outside %v..%v", a.Value, q.Min, q.Max)
		}
		a.Choice, a.Probabilities = "", nil
	default:
		return fmt.Errorf("question kind %q is unknown", q.Kind)
	}
	return nil
}

func unit(v float64) bool { return v >= 0 && v <= 1 } // false for NaN

// cleanEvidence makes a remote model's words safe to show: printable,
// redacted, few and short.
func cleanEvidence(ev []string) []string {
	if len(ev) == 0 {
		return nil
	}
	out := make([]string, 0, min(len(ev), maxEvidenceItems))
	for _, e := range ev {
		e = strings.TrimSpace(Printable(e))
		if e == "" {
			continue
		}
		out = append(out, termtext.Clip(Redact(e), maxEvidenceChars))
		if len(out) == maxEvidenceItems {
			break
		}
	}
	return out
}
