package watch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hangdog/hangdog/internal/safefile"
)

// Approval watchers: a person decides, on a small page behind the link
// (package approval serves it), and the decision wakes the owner once.
// Nothing polls: the page stores the decision in the watcher's inbox under
// its lock, and the runner, told by inotify, fires one event and ends.

// Approval is what an approval watcher asks; kept in its spec.
type Approval struct {
	Question string   `json:"question"`
	Details  string   `json:"details,omitempty"`
	Options  []string `json:"options"`
	// Agent is the process that asked through MCP (the MCP server's
	// parent: the agent itself), with its start time so a reused pid is
	// not mistaken for it. The page refuses requests from it and from
	// everything it started, hangdog's or not.
	AgentPID   int    `json:"agent_pid,omitempty"`
	AgentStart uint64 `json:"agent_start,omitempty"`
}

// ApprovalRequest is an approval create request as a front end gives it
// (the MCP tool's fields; the CLI's flags are the same words).
type ApprovalRequest struct {
	Question  string   `json:"question" jsonschema:"the question for the person, e.g. Deploy build 142 to production?"`
	Details   string   `json:"details,omitempty" jsonschema:"optional plain text shown under the question (what will happen, a diff summary); at most 16 KiB"`
	Options   []string `json:"options,omitempty" jsonschema:"the buttons, 1 to 6 short labels (default Approve, Reject)"`
	ExpiresAt string   `json:"expires_at,omitempty" jsonschema:"when the link stops working: ISO-8601 time with a zone (2026-12-01T18:00:00Z) or a duration (2h, 30m); default 24h, at most 30 days"`

	// AgentPID/AgentStart: who is asking (see Approval); set by the MCP
	// server, never by the request.
	AgentPID   int    `json:"-"`
	AgentStart uint64 `json:"-"`
}

// Limits of an approval request.
const (
	DefaultApprovalExpiry = 24 * time.Hour
	MaxApprovalExpiry     = 30 * 24 * time.Hour
	maxQuestion           = 500
	maxDetails            = 16 << 10
	maxOptions            = 6
	maxOptionLen          = 40
	// MaxComment is the longest comment a person may send with a decision.
	MaxComment = 2000
	// approvalInterval only matters without inotify: how often the runner
	// looks for a decision then.
	approvalInterval = 5 * time.Second
)

// DefaultOptions are the buttons when a request names none.
var DefaultOptions = []string{"Approve", "Reject"}

// Validate checks the request and returns what the spec keeps and when
// the link expires.
func (q *ApprovalRequest) Validate(now time.Time) (*Approval, time.Time, error) {
	a := &Approval{Question: strings.TrimSpace(q.Question), Details: strings.TrimRight(q.Details, " \t\r\n"),
		AgentPID: q.AgentPID, AgentStart: q.AgentStart}
	switch {
	case a.Question == "":
		return nil, time.Time{}, refuse("question (--question)", q.Question, "give the question the person answers, e.g. --question 'Deploy build 142?'")
	case len(a.Question) > maxQuestion || !utf8.ValidString(a.Question):
		return nil, time.Time{}, refuse("question (--question)", clip(a.Question, 40), fmt.Sprintf("use at most %d bytes of UTF-8 text; put the rest in the details", maxQuestion))
	case len(a.Details) > maxDetails || !utf8.ValidString(a.Details):
		return nil, time.Time{}, refuse("details (--details)", clip(a.Details, 40), fmt.Sprintf("use at most %d KiB of UTF-8 text", maxDetails>>10))
	}
	opts := q.Options
	if len(opts) == 0 {
		opts = DefaultOptions
	}
	if len(opts) > maxOptions {
		return nil, time.Time{}, refuse("options (--options)", strings.Join(opts, ","), fmt.Sprintf("give 1 to %d options", maxOptions))
	}
	seen := map[string]bool{}
	for _, o := range opts {
		o = strings.TrimSpace(o)
		if o == "" || len(o) > maxOptionLen || !utf8.ValidString(o) || strings.ContainsAny(o, "\r\n\t") {
			return nil, time.Time{}, refuse("options (--options)", o, fmt.Sprintf("each option is a label of 1 to %d characters on one line, e.g. --options Approve,Reject,Later", maxOptionLen))
		}
		if seen[strings.ToLower(o)] {
			return nil, time.Time{}, refuse("options (--options)", o, "give each option once")
		}
		seen[strings.ToLower(o)] = true
		a.Options = append(a.Options, o)
	}
	exp := now.Add(DefaultApprovalExpiry)
	if q.ExpiresAt != "" {
		var err error
		if exp, err = parseApprovalExpiry(q.ExpiresAt, now); err != nil {
			return nil, time.Time{}, err
		}
	}
	return a, exp, nil
}

// parseApprovalExpiry: an ISO-8601 time with a zone, as watchers take, or
// a duration from now (unambiguous on every machine too).
func parseApprovalExpiry(s string, now time.Time) (time.Time, error) {
	const allowed = "use an ISO-8601 time with a zone (2026-12-01T18:00:00Z) or a duration (2h, 30m), from a minute to 30 days ahead"
	var t time.Time
	if d, err := time.ParseDuration(s); err == nil {
		t = now.Add(d)
	} else if t, err = ParseExpiry(s); err != nil {
		return time.Time{}, refuse("expires_at (--expires)", s, allowed)
	}
	if t.Before(now.Add(time.Minute)) || t.After(now.Add(MaxApprovalExpiry)) {
		return time.Time{}, refuse("expires_at (--expires)", s, allowed)
	}
	return t, nil
}

// CreateApproval stores a new approval watcher with a fresh link token and
// returns it and the token (for the URL, shown to whoever asked). Its
// token and inbox exist before its spec, so a listed approval always has
// both. The caller starts its runner.
func (s *Store) CreateApproval(q *ApprovalRequest, owner, project string) (*Watcher, string, error) {
	now := time.Now()
	a, exp, err := q.Validate(now)
	if err != nil {
		return nil, "", err
	}
	if err := s.capRefusal(owner); err != nil {
		return nil, "", err
	}
	token, err := NewLinkToken()
	if err != nil {
		return nil, "", err
	}
	lim := s.Limits.orDefaults()
	spec := &Spec{
		Kind: KindApproval, Target: "approval page", Check: CheckChanged, Interval: approvalInterval,
		ExpiresAt: &exp, MaxFires: 1, MaxWakesPerHour: 1, GraceChecks: lim.GraceChecks, MaxErrors: lim.MaxErrors,
		Link: &LinkSpec{TokenHash: LinkTokenHash(token)}, Approval: a,
		Owner: owner, Project: project, Created: now,
	}
	st := &State{Baselined: true, Value: "waiting for a decision"}
	_, err = s.addWith(spec, st, func(id string) error {
		if err := os.Mkdir(s.Inbox(id), 0o700); err != nil {
			return fmt.Errorf("watcher %s: create its inbox: %w", id, err)
		}
		return s.writeLinkToken(id, token)
	})
	if err != nil {
		return nil, "", err
	}
	return &Watcher{Spec: spec, State: st}, token, nil
}

// Decision is what a person chose on the approval page.
type Decision struct {
	Choice  string    `json:"decision"`
	Comment string    `json:"comment,omitempty"`
	At      time.Time `json:"decided_at"`
}

// decisionFile is the one file of an approval's inbox.
const decisionFile = "decision.json"

// ApprovalView is an approval as its page shows it.
type ApprovalView struct {
	ID        string
	Approval  Approval
	ExpiresAt time.Time
	Decision  *Decision // nil: still open
}

// Errors of the approval page, by the answer they get.
var (
	// ErrDecided: a decision was made already (409); Decide returns it
	// with that decision.
	ErrDecided = errors.New("already decided")
	// ErrBadChoice: the choice is not one of the options, or the comment
	// is too long (400).
	ErrBadChoice = errors.New("not a valid decision")
	// ErrDecisionNotSent: the decision is recorded but did not reach the
	// watcher yet (the fleet receiver could not publish it); asking again
	// sends it (503).
	ErrDecisionNotSent = errors.New("the decision is recorded but was not sent on yet")
)

// ApprovalByToken returns the approval behind a link token for its page.
// It reads and never writes (no lock is taken, nothing is marked seen). An
// unknown, deleted, non-approval, expired or paused approval without a
// decision is ErrNotFound, all alike; a decided one is shown with its
// decision whatever happened after.
func (s *Store) ApprovalByToken(token string, now time.Time) (*ApprovalView, error) {
	w, err := s.ByLinkToken(token)
	if err != nil {
		return nil, err
	}
	return s.approvalView(w.Spec, w.State, now)
}

func (s *Store) approvalView(spec *Spec, st *State, now time.Time) (*ApprovalView, error) {
	if spec.Kind != KindApproval || spec.Approval == nil || spec.ExpiresAt == nil {
		return nil, fmt.Errorf("link: %w", ErrNotFound)
	}
	d, err := s.readDecision(spec.ID)
	if err != nil {
		return nil, err
	}
	v := &ApprovalView{ID: spec.ID, Approval: *spec.Approval, ExpiresAt: *spec.ExpiresAt, Decision: d}
	if d == nil && (st.Paused || !now.Before(*spec.ExpiresAt)) {
		return nil, fmt.Errorf("link: %w", ErrNotFound)
	}
	return v, nil
}

func (s *Store) readDecision(id string) (*Decision, error) {
	b, err := os.ReadFile(filepath.Join(s.Inbox(id), decisionFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("watcher %s: read its decision: %w", id, err)
	}
	var d Decision
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("watcher %s: read its decision: %w", id, err)
	}
	return &d, nil
}

// Decide records a person's decision on the approval behind token: under
// the watcher's lock, the first decision is written durably (fsync'd)
// before Decide returns, and wins. A later call returns the decision made
// with ErrDecided. An unknown, expired, paused or deleted approval is
// ErrNotFound; a choice that is not an option, or an overlong comment,
// ErrBadChoice. The watcher's runner turns the decision into its one
// event.
func (s *Store) Decide(token, choice, comment string, now time.Time) (*Decision, error) {
	w, err := s.ByLinkToken(token)
	if err != nil {
		return nil, err
	}
	comment, err = cleanComment(comment)
	if err != nil {
		return nil, err
	}
	var out *Decision
	var decided bool
	err = s.read(w.Spec.ID, func(spec *Spec, st *State) error {
		v, err := s.approvalView(spec, st, now)
		if err != nil {
			return err
		}
		if v.Decision != nil {
			out, decided = v.Decision, true
			return nil
		}
		if err := checkChoice(&v.Approval, choice); err != nil {
			return err
		}
		d := &Decision{Choice: choice, Comment: comment, At: now.UTC()}
		b, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return fmt.Errorf("encode the decision: %w", err)
		}
		if err := safefile.WriteDurable(filepath.Join(s.Inbox(spec.ID), decisionFile), append(b, '\n')); err != nil {
			return fmt.Errorf("watcher %s: store the decision: %w", spec.ID, err)
		}
		out = d
		return nil
	})
	if err != nil {
		return nil, err
	}
	if decided {
		return out, ErrDecided
	}
	return out, nil
}

// CheckDecision checks a decision against the approval as Decide does
// and returns the comment as it is kept (trimmed, valid UTF-8); an error
// wraps ErrBadChoice. The fleet receiver, which records decisions for
// sandboxes elsewhere, checks them with it before they are sent.
func CheckDecision(a *Approval, choice, comment string) (string, error) {
	c, err := cleanComment(comment)
	if err != nil {
		return "", err
	}
	return c, checkChoice(a, choice)
}

func cleanComment(comment string) (string, error) {
	comment = strings.TrimSpace(strings.ToValidUTF8(comment, "\uFFFD"))
	if n := utf8.RuneCountInString(comment); n > MaxComment {
		return "", fmt.Errorf("comment of %d characters: %w; use at most %d", n, ErrBadChoice, MaxComment)
	}
	return comment, nil
}

func checkChoice(a *Approval, choice string) error {
	if slices.Contains(a.Options, choice) {
		return nil
	}
	return fmt.Errorf("decision %q: %w; the options are %s", clip(choice, 40), ErrBadChoice, strings.Join(a.Options, ", "))
}

// DecidedPageFor is how long a decided approval's page is still served, so
// a second press or a reload shows the decision rather than no page.
const DecidedPageFor = time.Hour

// ApprovalServed says whether the receiver still has an approval's page to
// serve: undecided and neither paused nor expired, or decided within
// DecidedPageFor.
func (s *Store) ApprovalServed(w *Watcher, now time.Time) bool {
	if d, err := s.readDecision(w.Spec.ID); err == nil && d != nil {
		return now.Before(d.At.Add(DecidedPageFor))
	}
	return !w.State.Paused && (w.Spec.ExpiresAt == nil || now.Before(*w.Spec.ExpiresAt))
}

// decisionWaiting: an approval whose decision is in its inbox, not yet
// fired. Its expiry passing before the runner got to it does not void a
// decision the person was told was recorded.
func (s *Store) decisionWaiting(sp *Spec, st *State) bool {
	if sp.Kind != KindApproval || st.FiresUsed > 0 {
		return false
	}
	_, err := os.Stat(filepath.Join(s.Inbox(sp.ID), decisionFile))
	return err == nil
}

// ApprovalURL is the link to the approval page of token under base (the
// receiver's URL, e.g. http://127.0.0.1:8765).
func ApprovalURL(base, token string) string {
	return strings.TrimRight(base, "/") + "/approve/" + token
}

// ExpiresIn is a short "in 23h59m" for people.
func ExpiresIn(t, now time.Time) string {
	d := t.Sub(now).Truncate(time.Minute) // never more than is left
	if d <= 0 {
		return "expired"
	}
	h, m := int(d.Hours()), int(d.Minutes())%60
	switch {
	case h >= 48:
		return "in " + strconv.Itoa(h/24) + " days"
	case h > 0:
		return fmt.Sprintf("in %dh%02dm", h, m)
	}
	return "in " + strconv.Itoa(m) + " min"
}
