// Package watch owns watchers: standing intents of the form "when this
// changes, tell me". It holds the kinds of source (file, http, rss/Atom,
// process, command — one file each behind Source — and the link kinds
// called in through hangdog's receiver: webhook, whose deliveries
// AcceptDelivery stores in the watcher's inbox), the deterministic checks
// run on a change, the limits (interval floors, expiry, cooldown, fire
// budgets, wakes per hour, per-owner caps; a trigger link's max_hits and
// rate), each watcher's durable state under <home>/watchers/<id>/, the
// watcher's policy as pure steps (step.go: Step, StepLimits, StepVerdict,
// StepDelivered), a watcher's checks (Runner), which do the steps' I/O, and
// the home's runner that schedules every active watcher in one process
// (HomeRunner, home.go: a timer heap, one inotify instance, checks with
// deadlines and bounded concurrency). Fires and pauses become
// events in the registry's event log, so they reach consumers exactly as
// task events do. A watcher's natural-language condition is asked of the
// remote decision model (judge.go: Judge, JudgeFor) only after its check
// fired, the match kept in the state until the model settles it. The HTTP
// side of links is package receiver's; their lifecycle, the start of the
// runner's task and the link base are the watcher service's (watchctl), which
// every front end goes through.
//
// It is linked only by the full CLI (watch commands, the hidden __watch
// runner), the MCP server and the shell: the http and rss kinds need
// net/http and an XML parser, which `hangdog run` must not pay for.
package watch

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/settings"
)

// Kinds of source.
const (
	KindFile    = "file"
	KindHTTP    = "http"
	KindRSS     = "rss"
	KindProcess = "process"
	KindCommand = "command"
)

// Checks run when a source's content changed.
const (
	CheckChanged  = "changed"
	CheckNew      = "new"
	CheckAbove    = "above"
	CheckBelow    = "below"
	CheckContains = "contains"
	CheckMatches  = "matches"
	CheckStatus   = "status"
)

// Limits of a request. Network sources are somebody else's server: a floor
// of a minute by default (watchers.networkIntervalFloorSec); local ones
// cost a stat or a read. The tunable limits and their defaults are the
// watchers.* settings' (Limits, DefaultLimits).
const (
	LocalIntervalFloor = 1 * time.Second

	MaxMaxFires           = 100
	DefaultCommandTimeout = 30 * time.Second
)

// Limits are the user-tunable limits, from the watchers.* settings. The
// watch package does not load settings itself: the watcher service
// (watchctl) loads them where the caller runs and puts them in the Store.
// A watcher's spec keeps what applied at create, so its runner (__watch),
// started later in another environment, behaves as created.
type Limits struct {
	MaxActivePerOwner    int           // watchers.maxActivePerOwner
	MaxFires             int           // watchers.maxFires: the budget when a request gives none
	MaxWakesPerHour      int           // watchers.maxWakesPerHour: the default when a request gives none
	GraceChecks          int           // watchers.graceChecks: unreachable checks in a row before the one notice and pause
	MaxErrors            int           // watchers.maxErrors: failed checks (404s, missing paths…) in a row before a pause
	JudgeFailures        int           // watchers.judgeFailures: failed asks of the decision model on one match before it fires unchecked
	NetworkIntervalFloor time.Duration // watchers.networkIntervalFloorSec
}

// DefaultLimits are the built-in values: the watchers.* settings' defaults,
// read from the settings table (stated there once).
func DefaultLimits() Limits { return limitsOf(settings.DefaultWatchers()) }

// limitsOf converts the settings' group, as it is.
func limitsOf(w settings.Watchers) Limits {
	return Limits{
		MaxActivePerOwner: w.MaxActivePerOwner, MaxFires: w.MaxFires, MaxWakesPerHour: w.MaxWakesPerHour,
		GraceChecks: w.GraceChecks, MaxErrors: w.MaxErrors, JudgeFailures: w.JudgeFailures,
		NetworkIntervalFloor: time.Duration(w.NetworkIntervalFloorSec * float64(time.Second)),
	}
}

// orDefaults fills a zero field (a Limits built by hand) from DefaultLimits.
func (l Limits) orDefaults() Limits {
	d := DefaultLimits()
	pick := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	pick(&l.MaxActivePerOwner, d.MaxActivePerOwner)
	pick(&l.MaxFires, d.MaxFires)
	pick(&l.MaxWakesPerHour, d.MaxWakesPerHour)
	pick(&l.GraceChecks, d.GraceChecks)
	pick(&l.MaxErrors, d.MaxErrors)
	pick(&l.JudgeFailures, d.JudgeFailures)
	if l.NetworkIntervalFloor <= 0 {
		l.NetworkIntervalFloor = d.NetworkIntervalFloor
	}
	return l
}

// Spec is what a watcher was asked to do; written once at create.
type Spec struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Target    string `json:"target"` // path, URL, "pid:N" | "pidfile:P" | "name:N", or a bash command
	Check     string `json:"check"`
	Path      string `json:"path,omitempty"`  // dotted path into JSON, e.g. data.items[0].price
	Value     string `json:"value,omitempty"` // threshold, text, regex or comma-separated status set
	Condition string `json:"condition,omitempty"`
	Strict    bool   `json:"strict,omitempty"` // command: a failed run is an error, not an idle poll

	Interval        time.Duration `json:"interval_ns"`
	Timeout         time.Duration `json:"timeout_ns,omitempty"` // command
	ExpiresAt       *time.Time    `json:"expires_at,omitempty"`
	Cooldown        time.Duration `json:"cooldown_ns,omitempty"`
	MaxFires        int           `json:"max_fires"` // 0: unlimited (only without an owner)
	MaxWakesPerHour int           `json:"max_wakes_per_hour"`
	GraceChecks     int           `json:"grace_checks"`
	MaxErrors       int           `json:"max_errors"`
	// JudgeFailures: failed asks of the decision model in a row on one
	// match before it fires unchecked (0 in a spec written before the
	// setting: watchers.judgeFailures).
	JudgeFailures int `json:"judge_failures,omitempty"`

	// Link: set for the kinds called in through the receiver (webhook,
	// approval); see link.go.
	Link *LinkSpec `json:"link,omitempty"`
	// Approval: what an approval watcher asks a person; see approval.go.
	Approval *Approval `json:"approval,omitempty"`

	Owner   string    `json:"owner,omitempty"`
	Project string    `json:"project,omitempty"`
	Created time.Time `json:"created"`
}

// rawLabel is the watcher in a few words, secrets and all; Label is what
// may be shown.
func (s *Spec) rawLabel() string {
	if s.Kind == "" { // a damaged watcher's stand-in (damaged.go)
		return s.Target
	}
	if s.Kind == KindWebhook {
		return s.webhookLabel()
	}
	if s.Approval != nil {
		return fmt.Sprintf("approval %q", clip(s.Approval.Question, 80))
	}
	what := s.Check
	switch s.Check {
	case CheckAbove, CheckBelow, CheckContains, CheckMatches, CheckStatus:
		what += " " + s.Value
	}
	if s.Path != "" {
		what = s.Path + " " + what
	}
	return fmt.Sprintf("%s %s (%s)", s.Kind, s.Target, what)
}

// network reports whether the kind asks another machine.
func (s *Spec) network() bool { return s.Kind == KindHTTP || s.Kind == KindRSS }

// Request is a create request as a front end gives it: strings and
// optional numbers, validated by Validate into a Spec. Field names are the
// MCP tool's; the CLI's flags are the same words with dashes.
type Request struct {
	Kind      string `json:"kind" jsonschema:"file, http, rss, process, command or webhook"`
	Target    string `json:"target,omitempty" jsonschema:"file path, URL, pid:N / pidfile:PATH / name:NAME, or a bash command; none for a webhook"`
	Check     string `json:"check,omitempty" jsonschema:"changed (default), new, above, below, contains, matches, status"`
	Path      string `json:"path,omitempty" jsonschema:"dotted path into JSON with [index], e.g. data.items[0].price"`
	Value     string `json:"value,omitempty" jsonschema:"threshold number, text, regex, or comma-separated statuses"`
	Condition string `json:"condition,omitempty" jsonschema:"optional natural-language condition asked only after the check fires"`
	Strict    bool   `json:"strict,omitempty" jsonschema:"command: a failing run is reported instead of counting as idle"`

	IntervalSeconds float64  `json:"interval_seconds,omitempty" jsonschema:"seconds between checks; at least 60 for http and rss, 1 for local kinds"`
	TimeoutSeconds  float64  `json:"timeout_seconds,omitempty" jsonschema:"command: seconds before a run counts as idle (default 30)"`
	ExpiresAt       string   `json:"expires_at,omitempty" jsonschema:"ISO-8601 time with a zone, e.g. 2026-12-01T18:00:00Z"`
	CooldownSeconds *float64 `json:"cooldown_seconds,omitempty" jsonschema:"seconds after a fire in which changes fire nothing (default 0)"`
	MaxFires        *int     `json:"max_fires,omitempty" jsonschema:"1 to 100 fires, then the watcher pauses (default {watchers.maxFires})"`
	MaxWakesPerHour *int     `json:"max_wakes_per_hour,omitempty" jsonschema:"more fires than this within an hour pause the watcher (default {watchers.maxWakesPerHour})"`

	// A webhook's link (kind webhook); see webhook.go.
	Signature  string `json:"signature,omitempty" jsonschema:"webhook: github, standard_webhooks or hmac_sha256 for a sender that signs; empty: unsigned (the URL is the secret)"`
	SecretEnv  string `json:"secret_env,omitempty" jsonschema:"webhook: the name of an environment variable holding the signing secret (never the secret itself); without it and secret_file a secret is made"`
	SecretFile string `json:"secret_file,omitempty" jsonschema:"webhook: a file only you can read holding the signing secret"`
	MaxHits    *int   `json:"max_hits,omitempty" jsonschema:"webhook: deliveries the link accepts, then it closes (default 100, at most 10000)"`
	Rate       string `json:"rate,omitempty" jsonschema:"webhook: deliveries a minute, e.g. 60/min or 2/s (default 60/min)"`
}

// Refusal is a request refused by validation; it names the field, the
// value and the allowed form, and nothing was written.
type Refusal struct{ Field, Value, Allowed string }

func (r *Refusal) Error() string {
	return fmt.Sprintf("%s %q: %s; nothing was created", r.Field, r.Value, r.Allowed)
}

func refuse(field, value, allowed string) error { return &Refusal{field, value, allowed} }

// isoWithZone: a date, 'T', a time, and a zone (Z or ±hh:mm). Bare dates,
// zone-less times and free text are refused: "tomorrow 5pm" means
// something else on every machine.
var isoWithZone = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$`)

// ParseExpiry parses an expires_at value.
func ParseExpiry(s string) (time.Time, error) {
	const allowed = "use an ISO-8601 time with a zone, e.g. 2026-12-01T18:00:00Z or 2026-12-01T19:00:00+01:00 (a bare date, a time without a zone or free text is refused)"
	if !isoWithZone.MatchString(s) {
		return time.Time{}, refuse("expires_at (--expires)", s, allowed)
	}
	layout := "2006-01-02T15:04Z07:00"
	if strings.Count(s, ":") >= 2 && s[16] == ':' {
		layout = time.RFC3339Nano
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		return time.Time{}, refuse("expires_at (--expires)", s, allowed)
	}
	return t, nil
}

// Validate turns a request into a spec for owner, applying defaults and
// every limit. now is when it is asked (expiry must be after it).
func (q *Request) Validate(owner string, now time.Time) (*Spec, error) {
	return q.ValidateWith(DefaultLimits(), owner, now)
}

// ValidateWith is Validate under the given limits (the watchers.*
// settings).
func (q *Request) ValidateWith(lim Limits, owner string, now time.Time) (*Spec, error) {
	lim = lim.orDefaults()
	s := &Spec{
		Kind: strings.ToLower(strings.TrimSpace(q.Kind)), Target: strings.TrimSpace(q.Target),
		Check: strings.ToLower(strings.TrimSpace(q.Check)), Path: strings.TrimSpace(q.Path), Value: q.Value,
		Condition: strings.TrimSpace(q.Condition), Strict: q.Strict, Owner: owner, Created: now,
	}
	switch s.Kind {
	case KindFile, KindHTTP, KindRSS, KindProcess, KindCommand:
	case KindWebhook:
		return q.validateWebhook(s, lim, now)
	default:
		return nil, refuse("kind (--kind)", q.Kind, "use file, http, rss, process, command or webhook")
	}
	if q.hasLinkFields() {
		return nil, refuse("kind (--kind)", q.Kind, "signature, secret_env, secret_file, max_hits and rate are for kind webhook")
	}
	if s.Target == "" {
		return nil, refuse("target", q.Target, "give what to watch: a file path, a URL, pid:N / pidfile:PATH / name:NAME, or a command")
	}
	if err := validTarget(s); err != nil {
		return nil, err
	}
	if s.Check == "" {
		s.Check = CheckChanged
		if s.Kind == KindRSS {
			s.Check = CheckNew
		}
	}
	if err := validCheck(s); err != nil {
		return nil, err
	}
	if len(s.Condition) > jev.MaxConditionChars {
		return nil, refuse("condition (--condition)", s.Condition[:40]+"…", fmt.Sprintf("use at most %d characters", jev.MaxConditionChars))
	}

	// With inotify a file watcher's interval only spaces its checks (and
	// is the polling period without inotify), so it can be short.
	floor, def := LocalIntervalFloor, 30*time.Second
	switch {
	case s.network():
		floor, def = lim.NetworkIntervalFloor, max(5*time.Minute, lim.NetworkIntervalFloor)
	case s.Kind == KindFile:
		def = 5 * time.Second
	}
	s.Interval = def
	if q.IntervalSeconds != 0 {
		iv := time.Duration(q.IntervalSeconds * float64(time.Second))
		if iv < floor || q.IntervalSeconds > 7*24*3600 {
			return nil, refuse("interval_seconds (--interval)", fmtNum(q.IntervalSeconds),
				fmt.Sprintf("use at least %v for kind %s (watchers.networkIntervalFloorSec for http and rss) and at most a week", floor, s.Kind))
		}
		s.Interval = iv
	}
	if s.Kind == KindCommand {
		s.Timeout = DefaultCommandTimeout
		if q.TimeoutSeconds != 0 {
			if q.TimeoutSeconds < 0.1 || q.TimeoutSeconds > 600 {
				return nil, refuse("timeout_seconds (--timeout)", fmtNum(q.TimeoutSeconds), "use 0.1 to 600 seconds")
			}
			s.Timeout = time.Duration(q.TimeoutSeconds * float64(time.Second))
		}
	}
	if q.ExpiresAt != "" {
		t, err := ParseExpiry(q.ExpiresAt)
		if err != nil {
			return nil, err
		}
		if !t.After(now) {
			return nil, refuse("expires_at (--expires)", q.ExpiresAt, "use a time in the future")
		}
		s.ExpiresAt = &t
	}
	if q.CooldownSeconds != nil {
		if *q.CooldownSeconds < 0 {
			return nil, refuse("cooldown_seconds (--cooldown)", fmtNum(*q.CooldownSeconds), "use 0 or more seconds")
		}
		s.Cooldown = time.Duration(*q.CooldownSeconds * float64(time.Second))
	}
	s.MaxFires = lim.MaxFires
	if q.MaxFires != nil {
		n := *q.MaxFires
		switch {
		case n == 0 && owner != "":
			return nil, refuse("max_fires (--max-fires)", "0", "use 1 to 100; 0 (unlimited) is refused for a watcher with an owner (a session)")
		case n < 0 || n > MaxMaxFires:
			return nil, refuse("max_fires (--max-fires)", strconv.Itoa(n), fmt.Sprintf("use a whole number from 1 to 100 (default %d, watchers.maxFires)", lim.MaxFires))
		}
		s.MaxFires = n
	}
	s.MaxWakesPerHour = lim.MaxWakesPerHour
	if q.MaxWakesPerHour != nil {
		if n := *q.MaxWakesPerHour; n < 1 || n > 60 {
			return nil, refuse("max_wakes_per_hour (--max-wakes-per-hour)", strconv.Itoa(n), fmt.Sprintf("use a whole number from 1 to 60 (default %d, watchers.maxWakesPerHour)", lim.MaxWakesPerHour))
		}
		s.MaxWakesPerHour = *q.MaxWakesPerHour
	}
	s.GraceChecks, s.MaxErrors = lim.GraceChecks, lim.MaxErrors
	if s.Condition != "" {
		s.JudgeFailures = lim.JudgeFailures
	}
	return s, nil
}

func validTarget(s *Spec) error {
	switch s.Kind {
	case KindFile:
		// Absolute: the runner may start in another directory (an MCP
		// server's, a resumed task's).
		abs, err := filepath.Abs(s.Target)
		if err != nil {
			return refuse("target", s.Target, "give a file path")
		}
		s.Target = abs
	case KindHTTP, KindRSS:
		if !strings.HasPrefix(s.Target, "http://") && !strings.HasPrefix(s.Target, "https://") {
			return refuse("target", s.Target, "use an http:// or https:// URL")
		}
	case KindProcess:
		t, err := parseProcessTarget(s.Target)
		if err != nil {
			return err
		}
		if t.pidFile != "" {
			abs, err := filepath.Abs(t.pidFile)
			if err != nil {
				return refuse("target", s.Target, "give a pid file path")
			}
			s.Target = "pidfile:" + abs
		}
	}
	return nil
}

func validCheck(s *Spec) error {
	switch s.Check {
	case CheckChanged:
	case CheckNew:
		if s.Kind != KindRSS && s.Path == "" {
			return refuse("check (--check)", s.Check, "new items need a feed (kind rss) or a path to a JSON array (--path)")
		}
	case CheckAbove, CheckBelow:
		if _, err := strconv.ParseFloat(strings.TrimSpace(s.Value), 64); err != nil {
			return refuse("value (--value)", s.Value, "a threshold check needs a number, e.g. --value 95.5")
		}
	case CheckContains:
		if s.Value == "" {
			return refuse("value (--value)", s.Value, "contains needs the text to look for")
		}
	case CheckMatches:
		if _, err := regexp.Compile(s.Value); err != nil || s.Value == "" {
			return refuse("value (--value)", s.Value, "matches needs a valid regular expression (Go RE2 syntax)")
		}
	case CheckStatus:
		if strings.Trim(s.Value, ", ") == "" {
			return refuse("value (--value)", s.Value, "status needs the values to wake on, comma-separated, e.g. --value failed,success")
		}
	default:
		return refuse("check (--check)", s.Check, "use changed, new, above, below, contains, matches or status")
	}
	if s.Kind == KindCommand && s.Check != CheckChanged {
		return refuse("check (--check)", s.Check, "a command watcher decides itself (its outcome): leave the check as changed")
	}
	if s.Path != "" {
		if _, err := parsePath(s.Path); err != nil {
			return refuse("path (--path)", s.Path, "use a dotted path with [index], e.g. data.items[0].price")
		}
	}
	return nil
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// LimitsFrom turns the watchers.* settings into Limits.
func LimitsFrom(w settings.Watchers) Limits { return limitsOf(w).orDefaults() }
