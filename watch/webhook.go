package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hangdog/hangdog/internal/safefile"
	"github.com/hangdog/hangdog/internal/webhooksig"
)

// A webhook watcher is a trigger link: hangdog's receiver (`hangdog
// serve`) takes POSTs at <base>/hook/<token>, checks the signature, the
// rate and the limits, and stores each accepted delivery in the watcher's
// inbox (AcceptDelivery); the watcher's runner drains the inbox (the
// webhook kind, kind_webhook.go). Its limits are the link's: max_hits
// deliveries in all, a rate a minute, an expiry.

// Limits of a trigger link.
const (
	DefaultMaxHits    = 100
	MaxMaxHits        = 10000
	DefaultRatePerMin = 60
	MaxRatePerMin     = 60000
	DefaultLinkLife   = 7 * 24 * time.Hour
	// UnverifiedFactor: requests to a signed link whose signature fails
	// have a cap of their own, this many times the link's rate.
	UnverifiedFactor = 4
)

// linkSecretFile holds a signed link's secret (0600); hookFile what the
// receiver counts: hits and the delivery ids it has stored.
const (
	linkSecretFile = "link.secret"
	hookFile       = "hook.json"
)

func (q *Request) hasLinkFields() bool {
	return q.Signature != "" || q.SecretEnv != "" || q.SecretFile != "" || q.MaxHits != nil || q.Rate != ""
}

var ratePattern = regexp.MustCompile(`^\s*(\d+)\s*/\s*(s|sec|second|m|min|minute|h|hour)\s*$`)

// ParseRate reads "60/min", "2/s" or "600/h" as deliveries a minute.
func ParseRate(text string) (int, error) {
	allowed := fmt.Sprintf("use N/min, N/s or N/h, from 1/min to %d/min (e.g. 60/min)", MaxRatePerMin)
	m := ratePattern.FindStringSubmatch(strings.ToLower(text))
	if m == nil {
		return 0, refuse("rate (--rate)", text, allowed)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, refuse("rate (--rate)", text, allowed)
	}
	perMin := n
	switch m[2][0] {
	case 's':
		perMin = n * 60
	case 'h':
		if n%60 != 0 {
			return 0, refuse("rate (--rate)", text, "a rate an hour must be a whole number a minute (a multiple of 60/h); "+allowed)
		}
		perMin = n / 60
	}
	if perMin < 1 || perMin > MaxRatePerMin {
		return 0, refuse("rate (--rate)", text, allowed)
	}
	return perMin, nil
}

func (q *Request) validateWebhook(s *Spec, lim Limits, now time.Time) (*Spec, error) {
	if s.Target != "" {
		return nil, refuse("target", s.Target, "a webhook watcher has no target: it is called at the URL create returns")
	}
	switch {
	case q.IntervalSeconds != 0:
		return nil, refuse("interval_seconds (--interval)", fmtNum(q.IntervalSeconds), "a webhook is not polled: leave the interval out")
	case q.CooldownSeconds != nil:
		return nil, refuse("cooldown_seconds (--cooldown)", fmtNum(*q.CooldownSeconds), "a webhook fires once per accepted delivery; limit it with rate (--rate) instead")
	case q.MaxFires != nil:
		return nil, refuse("max_fires (--max-fires)", strconv.Itoa(*q.MaxFires), "a webhook's budget is max_hits (--max-hits): each accepted delivery fires at most once")
	case q.MaxWakesPerHour != nil:
		return nil, refuse("max_wakes_per_hour (--max-wakes-per-hour)", strconv.Itoa(*q.MaxWakesPerHour), "a webhook's wakes are limited by rate (--rate), enforced when a delivery arrives")
	case q.Strict:
		return nil, refuse("strict (--strict)", "true", "strict is for command watchers")
	}
	if s.Check == "" {
		s.Check = CheckChanged
	}
	if s.Check == CheckNew {
		return nil, refuse("check (--check)", s.Check, "every accepted delivery is new: use changed (every delivery fires), or status, above, below, contains or matches on the body")
	}
	if err := validCheck(s); err != nil {
		return nil, err
	}
	if s.Condition != "" {
		// A condition is asked of a model outside the watcher's lock, one
		// pending match at a time (judge.go); a link takes many deliveries a
		// minute, each a promise once it got its 202. Its checks are the
		// deterministic ones.
		return nil, refuse("condition (--condition)", clip(s.Condition, 40), "a webhook's deliveries are checked without a model: use --check status, above, below, contains or matches with --path on the body")
	}
	link := &LinkSpec{Signature: strings.ToLower(strings.TrimSpace(q.Signature)), MaxHits: DefaultMaxHits, RatePerMin: DefaultRatePerMin}
	if link.Signature != "" && !webhooksig.Known(link.Signature) {
		return nil, refuse("signature (--signature)", q.Signature, "use github, standard_webhooks or hmac_sha256, or leave it out for an unsigned link (the URL is the secret)")
	}
	if link.Signature == "" && (q.SecretEnv != "" || q.SecretFile != "") {
		return nil, refuse("signature (--signature)", "", "a signing secret needs a scheme: --signature github, standard_webhooks or hmac_sha256")
	}
	if q.SecretEnv != "" && q.SecretFile != "" {
		return nil, refuse("secret_env (--secret-env)", q.SecretEnv, "give the secret one way: --secret-env or --secret-file, not both")
	}
	if q.SecretEnv != "" && !envName.MatchString(q.SecretEnv) {
		return nil, refuse("secret_env (--secret-env)", "(hidden)", "give the name of an environment variable (e.g. HOOK_SECRET), never the secret itself")
	}
	if q.MaxHits != nil {
		if n := *q.MaxHits; n < 1 || n > MaxMaxHits {
			return nil, refuse("max_hits (--max-hits)", strconv.Itoa(n), fmt.Sprintf("use a whole number from 1 to %d (default %d)", MaxMaxHits, DefaultMaxHits))
		}
		link.MaxHits = *q.MaxHits
	}
	if q.Rate != "" {
		n, err := ParseRate(q.Rate)
		if err != nil {
			return nil, err
		}
		link.RatePerMin = n
	}
	s.Link = link
	// A link always expires: a forgotten URL must not stay open.
	exp := now.Add(DefaultLinkLife)
	if q.ExpiresAt != "" {
		t, err := ParseExpiry(q.ExpiresAt)
		if err != nil {
			return nil, err
		}
		if !t.After(now) {
			return nil, refuse("expires_at (--expires)", q.ExpiresAt, "use a time in the future")
		}
		exp = t
	}
	s.ExpiresAt = &exp
	// The runner is told of each delivery by inotify on the inbox; the
	// interval only spaces its checks.
	s.Interval = LocalIntervalFloor
	s.MaxFires = link.MaxHits
	s.MaxWakesPerHour = lim.MaxWakesPerHour
	s.GraceChecks, s.MaxErrors = lim.GraceChecks, lim.MaxErrors
	return s, nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// linkSecret reads the signing secret the request names, before anything
// is written. The secret itself is never quoted in an error.
func (q *Request) linkSecret(scheme string) (string, error) {
	var secret string
	switch {
	case scheme == "":
		return "", nil
	case q.SecretEnv != "":
		secret = os.Getenv(q.SecretEnv)
		if secret == "" {
			return "", refuse("secret_env (--secret-env)", q.SecretEnv, "that environment variable is unset or empty here; export the secret in it, or leave both secret_env and secret_file out to have one made")
		}
	case q.SecretFile != "":
		fi, err := os.Stat(q.SecretFile)
		if err != nil {
			return "", refuse("secret_file (--secret-file)", q.SecretFile, "give a file that exists and holds the secret")
		}
		if !fi.Mode().IsRegular() || fi.Size() > 4096 {
			return "", refuse("secret_file (--secret-file)", q.SecretFile, "give a regular file of at most 4 KiB holding the secret")
		}
		if fi.Mode().Perm()&0o077 != 0 {
			return "", refuse("secret_file (--secret-file)", q.SecretFile, fmt.Sprintf("it is readable by others (mode %04o): make it private first (chmod 600)", fi.Mode().Perm()))
		}
		b, err := os.ReadFile(q.SecretFile)
		if err != nil {
			return "", refuse("secret_file (--secret-file)", q.SecretFile, "hangdog cannot read it: "+err.Error())
		}
		secret = strings.TrimRight(string(b), "\r\n")
	default:
		return webhooksig.NewSecret(scheme)
	}
	if err := webhooksig.CheckSecret(scheme, secret); err != nil {
		field, value := "secret_env (--secret-env)", q.SecretEnv
		if q.SecretFile != "" {
			field, value = "secret_file (--secret-file)", q.SecretFile
		}
		return "", refuse(field, value, "the secret there is not usable for "+scheme+": "+err.Error())
	}
	return secret, nil
}

// createWebhook stores a new trigger link: its token, its secret and its
// empty inbox are in the watcher's directory before its spec is, so a
// listed link is complete. There is no baseline to take.
func (s *Store) createWebhook(spec *Spec, q *Request) (*Created, error) {
	secret, err := q.linkSecret(spec.Link.Signature)
	if err != nil {
		return nil, err
	}
	token, err := NewLinkToken()
	if err != nil {
		return nil, err
	}
	spec.Link.TokenHash = LinkTokenHash(token)
	st := &State{Baselined: true}
	_, err = s.addWith(spec, st, func(id string) error {
		if err := os.Mkdir(s.Inbox(id), 0o700); err != nil {
			return fmt.Errorf("watcher %s: create its inbox: %w", id, err)
		}
		if err := s.writeLinkToken(id, token); err != nil {
			return err
		}
		if secret != "" {
			return safefile.Write(filepath.Join(s.watcherDir(id), linkSecretFile), []byte(secret+"\n"))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Created{Watcher: &Watcher{Spec: spec, State: st}, Baseline: "waiting for deliveries"}, nil
}

// LinkSecret reads a signed link's secret: for the receiver (which checks
// signatures) and for the person (`hangdog watch secret`); only the owner
// may. An unsigned link has none ("").
func (s *Store) LinkSecret(id, owner string) (string, error) {
	w, err := s.Get(id, owner)
	if err != nil {
		return "", err
	}
	if w.Spec.Link == nil || w.Spec.Link.Signature == "" {
		return "", nil
	}
	b, err := os.ReadFile(filepath.Join(s.watcherDir(id), linkSecretFile))
	if err != nil {
		return "", fmt.Errorf("watcher %s: read its signing secret: %w", id, err)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

func (s *Spec) webhookLabel() string {
	l := "webhook link"
	if s.Link != nil && s.Link.Signature != "" {
		l += ", " + s.Link.Signature + " signature"
	}
	what := s.Check
	switch s.Check {
	case CheckAbove, CheckBelow, CheckContains, CheckMatches, CheckStatus:
		what += " " + s.Value
	}
	if s.Path != "" {
		what = s.Path + " " + what
	}
	return l + " (" + what + ")"
}

// WebhookOpen reports whether a trigger link takes deliveries at now: not
// paused (a pause or a delete revokes it), not expired, hits left. The
// receiver answers 404 otherwise, the same as for an unknown link. A link
// whose hits cannot be read is not open here; the receiver asks
// CheckWebhookOpen, which tells that apart.
func (s *Store) WebhookOpen(w *Watcher, now time.Time) bool {
	open, err := s.CheckWebhookOpen(w, now)
	return err == nil && open
}

// CheckWebhookOpen is WebhookOpen with the error of reading the link's
// hits, which is no answer about the link (a process out of descriptors
// must not call a live link closed).
func (s *Store) CheckWebhookOpen(w *Watcher, now time.Time) (bool, error) {
	if w.Spec.Kind != KindWebhook || w.Spec.Link == nil || w.State.Paused {
		return false, nil
	}
	if w.Spec.ExpiresAt != nil && !now.Before(*w.Spec.ExpiresAt) {
		return false, nil
	}
	h, err := s.readHook(w.Spec.ID)
	if err != nil {
		return false, fmt.Errorf("watcher %s: read its hits: %w", w.Spec.ID, err)
	}
	return h.Hits < w.Spec.Link.MaxHits, nil
}

// LinkHits is how many deliveries a trigger link has accepted.
func (s *Store) LinkHits(id string) int {
	h, _ := s.readHook(id)
	return h.Hits
}
