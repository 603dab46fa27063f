package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/jev/remote"
	"github.com/hangdog/hangdog/settings"
)

// Judge asks the decision model whether a watcher's natural-language
// condition holds for what its source says. It is asked only after the
// deterministic check fired and the cooldown and budgets allowed a fire,
// never on a quiet check. text is the source's words, untrusted: a Judge
// shows a model only jev.ConditionText(text), marked as data.
//
// An error wrapping ErrNotJudged means it will never answer (no decision
// model is configured): the fire goes out at once, marked "condition not
// checked" with the error's words. Any other error is a failure (a
// timeout, a 5xx, a malformed answer): the match is kept in the state and
// asked about again at the next check, and after Spec.JudgeFailures
// failures in a row it fires anyway, marked not checked. A model that is
// down delays news; it never swallows it.
type Judge func(ctx context.Context, condition, text string) (Judgment, error)

// Judgment is the decision model's verdict on a condition.
type Judgment struct {
	Holds bool
	// Why is the model's reason: words of a model that read untrusted
	// text, so it travels with the payload, never in the event's reason.
	Why string
}

// ErrNotJudged: the condition cannot be asked at all (see Judge).
var ErrNotJudged = errors.New("condition not checked")

// noModelHint says how to give watchers a decision model.
const noModelHint = "no decision model is configured (set HANGDOG_OPENAI_BASE_URL and HANGDOG_OPENAI_MODEL, " +
	"or TYPESAFE_API_KEY, where the watcher is created, or watchdog.decisionModel.source=custom with its backend, url and model: `hangdog config set`)"

// NoModel is the Judge of a runner with no decision model: it abstains at
// once with why (what was wrong with the configuration, or that there is
// none and how to set one up).
func NoModel(why string) Judge {
	return func(context.Context, string, string) (Judgment, error) {
		return Judgment{}, fmt.Errorf("%w: %s", ErrNotJudged, why)
	}
}

// ModelJudge is the Judge that asks asker.
func ModelJudge(asker jev.ConditionAsker) Judge {
	return func(ctx context.Context, condition, text string) (Judgment, error) {
		ans, err := asker.AskCondition(ctx, condition, text)
		if err != nil {
			return Judgment{}, err
		}
		return Judgment{Holds: ans.Holds, Why: ans.Why}, nil
	}
}

// JudgeFor is the Judge over the remote decision model the settings
// configure, resolved exactly as the supervisor resolves its own
// (jev.ResolveRemote over watchdog.decisionModel.* and, in "inherit" mode,
// getenv), with a line for the runner's log saying what conditions are
// asked of; asks is false when no model will be. No remote model, or a
// configuration that is refused, is a Judge that abstains at once saying
// why: a watcher never waits on a model it cannot have.
func JudgeFor(dm settings.DecisionModel, getenv func(string) string) (j Judge, note string, asks bool) {
	cfg, ok, err := jev.ResolveRemote(dm.Source, jev.RemoteConfig{
		Backend: dm.Backend, URL: dm.URL, Model: dm.Model, APIKeyEnv: dm.APIKeyEnv, Timeout: dm.Timeout(),
	}, getenv)
	if err == nil && !ok {
		return NoModel(noModelHint), "conditions: " + noModelHint + "; a fire with a condition goes out marked not checked", false
	}
	var asker jev.ConditionAsker
	if err == nil {
		asker, err = remote.NewConditionAsker(cfg)
	}
	if err != nil {
		why := "the decision model cannot be used: " + jev.Redact(err.Error())
		return NoModel(why), "conditions: " + why + "; a fire with a condition goes out marked not checked", false
	}
	what := cfg.Backend + " at " + jev.SafeURL(cfg.URL)
	if cfg.Model != "" {
		what += ", model " + cfg.Model
	}
	return ModelJudge(asker), "conditions are asked of " + what, true
}

// Judging is a match waiting for the decision model's verdict on the
// watcher's condition. The check that matched advanced the state past it
// (the hash, the edge, the item keys) in the same write that recorded it,
// so the match is neither lost by a crash nor seen again: it waits here
// until the model answers (holds: it fires; does not hold: it is consumed)
// or has failed Spec.JudgeFailures times in a row (it fires, marked not
// checked). While it waits, each check asks again and observes nothing.
type Judging struct {
	Summary string `json:"summary"`
	Payload string `json:"payload,omitempty"` // the event's payload if it fires
	// Text is what the model is shown, already jev.ConditionText
	// (redacted, capped), so no more than that is kept on disk.
	Text string `json:"text"`
	// Terminal: a command's terminal outcome; the watcher pauses once the
	// match is judged.
	Terminal  bool      `json:"terminal,omitempty"`
	Check     int       `json:"check"` // the check that matched
	Since     time.Time `json:"since"`
	Failures  int       `json:"failures,omitempty"` // failed asks in a row
	LastError string    `json:"last_error,omitempty"`
}

func (sp *Spec) judgeFailures() int {
	if sp.JudgeFailures > 0 {
		return sp.JudgeFailures
	}
	return DefaultLimits().JudgeFailures
}

// judgeEnvFile holds the environment variables a watcher's decision model
// is resolved from, as its create (or last resume) had them (0600: an API
// key may be among them).
const judgeEnvFile = "judge.env.json"

// SetJudgeEnv records the variables a watcher's decision model is
// resolved from (watchctl: its creator's).
func (s *Store) SetJudgeEnv(id string, env map[string]string) error {
	if _, err := os.Stat(s.watcherDir(id)); err != nil {
		return fmt.Errorf("watcher %s: %w", id, ErrNotFound)
	}
	return writeJSON(filepath.Join(s.watcherDir(id), judgeEnvFile), env)
}

// JudgeEnv is what SetJudgeEnv recorded; ok=false when nothing was.
func (s *Store) JudgeEnv(id string) (env map[string]string, ok bool) {
	if err := readJSON(filepath.Join(s.watcherDir(id), judgeEnvFile), &env); err != nil {
		return nil, false
	}
	return env, true
}
