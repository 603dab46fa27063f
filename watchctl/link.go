package watchctl

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hangdog/hangdog/internal/webhooksig"
	"github.com/hangdog/hangdog/receiver"
	"github.com/hangdog/hangdog/watch"
)

// LinkInfo is a link as every front end reports it, whichever its kind:
// where it is, until when, and whether it can be called from another
// machine; a trigger link's limits and an example call (TriggerInfo), an
// approval's question and buttons (ApprovalInfo). Never a signing secret.
type LinkInfo struct {
	ID                   string    `json:"id"`
	Kind                 string    `json:"kind"` // watch.KindWebhook or watch.KindApproval
	URL                  string    `json:"url"`
	ExpiresAt            time.Time `json:"expires_at"`
	ReachableFromOutside bool      `json:"reachable_from_outside"`
	// Reachability says why, for the person: a loopback address, a
	// private one, a public name…
	Reachability string `json:"reachability"`
	*TriggerInfo
	*ApprovalInfo
}

// TriggerInfo is what a sender needs of a trigger link, but its secret.
type TriggerInfo struct {
	MaxHits        int    `json:"max_hits"`
	Hits           int    `json:"hits"`
	Rate           string `json:"rate"`
	UnverifiedRate string `json:"unverified_rate,omitempty"`
	Signature      string `json:"signature"`
	Secret         string `json:"secret"`
	SecretEnv      string `json:"secret_env,omitempty"`
	ExampleCurl    string `json:"example_curl"`
	PayloadLimit   string `json:"payload_limit"`
}

// ApprovalInfo is what an approval link asks.
type ApprovalInfo struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
}

// ReachHint says what the link's reachability means for the person who
// opens it.
func (l *LinkInfo) ReachHint() string {
	if l.ReachableFromOutside {
		return "the link's address looks public: it should open from other devices"
	}
	return "the link's address is local to this machine (loopback, private or a bare host name): open it in a browser here, or publish the receiver (a tunnel run outside hangdog) to open it elsewhere"
}

// DefaultSecretEnv is the variable example_curl reads the signing secret
// from when create named none.
const DefaultSecretEnv = "WEBHOOK_SECRET"

// HiddenSecret is what every result shown to a model, a listing or a log
// says instead of a signing secret.
func HiddenSecret(id string) string {
	return "hidden: `hangdog watch secret " + id + "` shows it to you (never to a model)"
}

// linkOf describes w's link at the link base, starting the receiver (or
// registering the link at the fleet receiver) if it must. Both kinds fail alike: the error says the link cannot be made and
// what runs the receiver.
func (s *Service) linkOf(ctx context.Context, w *watch.Watcher, owner string) (*LinkInfo, error) {
	if w.Spec.Link == nil {
		return nil, fmt.Errorf("watcher %s is a %s watcher: only trigger and approval links have a URL", w.Spec.ID, w.Spec.Kind)
	}
	base, err := s.linkBase(ctx, w, owner)
	if err != nil {
		return nil, fmt.Errorf("the link of watcher %s could not be made: %w (`hangdog serve` runs the receiver)", w.Spec.ID, err)
	}
	token, err := s.store.LinkToken(w.Spec.ID, owner)
	if err != nil {
		return nil, err
	}
	return describe(base, w, token, s.store.LinkHits(w.Spec.ID)), nil
}

// describe is the link of w at base with its token.
func describe(base string, w *watch.Watcher, token string, hits int) *LinkInfo {
	sp := w.Spec
	base = strings.TrimRight(base, "/")
	l := &LinkInfo{ID: sp.ID, Kind: sp.Kind}
	if sp.ExpiresAt != nil {
		l.ExpiresAt = *sp.ExpiresAt
	}
	switch sp.Kind {
	case watch.KindApproval:
		l.URL = watch.ApprovalURL(base, token)
		if sp.Approval != nil {
			l.ApprovalInfo = &ApprovalInfo{Question: sp.Approval.Question, Options: sp.Approval.Options}
		}
	default:
		l.URL = base + receiver.HookPrefix + token
		l.TriggerInfo = triggerInfo(sp, l.URL, hits)
	}
	l.ReachableFromOutside, l.Reachability = watch.Reachable(l.URL)
	return l
}

func triggerInfo(sp *watch.Spec, url string, hits int) *TriggerInfo {
	t := &TriggerInfo{MaxHits: sp.Link.MaxHits, Hits: hits, Rate: fmt.Sprintf("%d/min", sp.Link.RatePerMin),
		Signature: "none", PayloadLimit: "1 MiB",
		Secret: "none: the link is unsigned, so its URL is the secret; keep it private"}
	if sp.Link.Signature != "" {
		t.Signature = sp.Link.Signature
		t.Secret = HiddenSecret(sp.ID)
		t.SecretEnv = DefaultSecretEnv
		t.UnverifiedRate = fmt.Sprintf("%d/min", sp.Link.RatePerMin*watch.UnverifiedFactor)
	}
	t.ExampleCurl = ExampleCurl(sp.Link.Signature, url, t.SecretEnv)
	return t
}

// ExampleCurl is a shell command that sends one delivery, signing it with
// the secret read from $env (never written into the command).
func ExampleCurl(scheme, link, env string) string {
	const body = `body='{"status":"done"}'; `
	post := "curl -sS -X POST -H 'Content-Type: application/json' "
	tail := `--data-binary "$body" '` + link + `'`
	hexHMAC := `$(printf '%s' "$body" | openssl dgst -sha256 -hmac "$` + env + `" -r | cut -d' ' -f1)`
	switch scheme {
	case webhooksig.GitHub:
		return body + post + `-H "X-Hub-Signature-256: sha256=` + hexHMAC + `" ` + tail
	case webhooksig.HMACSHA256:
		return body + post + `-H "X-Signature: sha256=` + hexHMAC + `" ` + tail
	case webhooksig.StandardWebhooks:
		return body + `id="msg_$(date +%s%N)"; ts=$(date +%s); ` +
			`key=$(printf '%s' "${` + env + `#whsec_}" | base64 -d | od -An -v -tx1 | tr -d ' \n'); ` +
			`sig=$(printf '%s' "$id.$ts.$body" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key" -binary | base64); ` +
			post + `-H "webhook-id: $id" -H "webhook-timestamp: $ts" -H "webhook-signature: v1,$sig" ` + tail
	}
	return body + post + tail
}
