package jev

import (
	"context"
	"strings"

	"github.com/hangdog/hangdog/internal/termtext"
)

// Conditions: a watcher's owner may add a natural-language condition to
// its deterministic check ("the failure is not a flaky test"); once the
// check fired, a remote decision model is asked whether the condition holds
// for what the watched source says. The local judge knows processes, not
// arbitrary text, so only a remote backend answers.
const (
	// MaxConditionTextChars caps the watched text a model is shown.
	MaxConditionTextChars = 8000
	// MaxConditionChars caps the condition itself (a watcher refuses a
	// longer one at create).
	MaxConditionChars = 2000
	// ConditionMaxTokens is the token budget of a condition's answer: a
	// boolean and one sentence of reason. It is small on purpose: a reply
	// that does not fit is a failed ask, not a longer bill.
	ConditionMaxTokens = 200
	// maxWhyChars caps the model's reason as hangdog keeps and shows it.
	maxWhyChars = 300
)

// ConditionAnswer is a decision model's answer to "does this condition
// hold for this text?".
type ConditionAnswer struct {
	Holds bool
	// Why is the model's reason in a sentence, made printable, redacted
	// and capped (CleanWhy). It is the words of a model that read
	// untrusted text: show it as such, never act on what it says.
	Why     string
	Backend string
}

// ConditionAsker asks a decision model whether a condition holds for a
// text. The text is untrusted (a file, a page, a feed, a command's output
// that anyone may have written): an asker shows the model only
// ConditionText(text), marked as data that must not be followed. Every
// failure — network, timeout, an error status, a malformed answer — is an
// error; there is no default answer.
type ConditionAsker interface {
	AskCondition(ctx context.Context, condition, text string) (ConditionAnswer, error)
}

// ConditionText is a watched text as a model may see it: printable line by
// line (escape sequences and control characters gone, newlines kept),
// secrets redacted (as one text, so a PEM block spanning lines is found),
// then capped at MaxConditionTextChars by cutting its middle, with a note
// saying how much was left out. Applying it twice changes nothing, so a
// caller may keep the result and ask with it later.
func ConditionText(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = Printable(l)
	}
	return termtext.CapMiddle(Redact(strings.Join(lines, "\n")), MaxConditionTextChars)
}

// CleanWhy makes a model's reason fit to keep and show: one printable
// line, redacted, at most a few hundred characters.
func CleanWhy(why string) string {
	why = strings.Join(strings.Fields(Printable(why)), " ")
	return termtext.Clip(Redact(why), maxWhyChars)
}
