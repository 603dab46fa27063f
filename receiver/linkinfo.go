package receiver

import (
	"fmt"
	"strings"
	"time"

	"github.com/hangdog/hangdog/internal/webhooksig"
	"github.com/hangdog/hangdog/watch"
)

// DefaultSecretEnv is the variable example_curl reads the signing secret
// from when create named none.
const DefaultSecretEnv = "WEBHOOK_SECRET"

// HiddenSecret is what every result shown to a model, a listing or a log
// says instead of a signing secret.
func HiddenSecret(id string) string {
	return "hidden: `hangdog watch secret " + id + "` shows it to you (never to a model)"
}

// Link is what webhook create returns: everything a sender needs but the
// signing secret.
type Link struct {
	ID                   string    `json:"id"`
	URL                  string    `json:"url"`
	ExpiresAt            time.Time `json:"expires_at"`
	MaxHits              int       `json:"max_hits"`
	Hits                 int       `json:"hits"`
	Rate                 string    `json:"rate"`
	UnverifiedRate       string    `json:"unverified_rate,omitempty"`
	Signature            string    `json:"signature"`
	Secret               string    `json:"secret"`
	SecretEnv            string    `json:"secret_env,omitempty"`
	ExampleCurl          string    `json:"example_curl"`
	ReachableFromOutside bool      `json:"reachable_from_outside"`
	Reachability         string    `json:"reachability"`
	PayloadLimit         string    `json:"payload_limit"`
}

// LinkFor describes a trigger link at base with its token.
func LinkFor(base string, w *watch.Watcher, token string, hits int) Link {
	sp := w.Spec
	l := Link{ID: sp.ID, URL: strings.TrimSuffix(base, "/") + HookPrefix + token, MaxHits: sp.Link.MaxHits, Hits: hits,
		Rate: fmt.Sprintf("%d/min", sp.Link.RatePerMin), Signature: "none", PayloadLimit: "1 MiB"}
	if sp.ExpiresAt != nil {
		l.ExpiresAt = *sp.ExpiresAt
	}
	l.Secret = "none: the link is unsigned, so its URL is the secret; keep it private"
	if sp.Link.Signature != "" {
		l.Signature = sp.Link.Signature
		l.Secret = HiddenSecret(sp.ID)
		l.SecretEnv = DefaultSecretEnv
		l.UnverifiedRate = fmt.Sprintf("%d/min", sp.Link.RatePerMin*watch.UnverifiedFactor)
	}
	l.ExampleCurl = ExampleCurl(sp.Link.Signature, l.URL, l.SecretEnv)
	l.ReachableFromOutside, l.Reachability = watch.Reachable(l.URL)
	return l
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
