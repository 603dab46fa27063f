package webhooksig

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// GitHub's published example, from "Validating webhook deliveries",
// section "Testing the webhook payload validation"
// (https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries;
// github/docs content/webhooks/using-webhooks/validating-webhook-deliveries.md).
const (
	githubSecret    = "It's a Secret to Everybody"
	githubPayload   = "Hello, World!"
	githubSignature = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
)

// The Standard Webhooks reference vector, from the specification's
// repository: standard-webhooks/standard-webhooks,
// libraries/go/webhook_test.go, TestWebhookSign (the same values are in
// the other languages' tests there).
const (
	swSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	swID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	swTimestamp = 1614265330
	swPayload   = `{"test": 2432232314}`
	swSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

// hmac_sha256 has no sender's specification; its HMAC is RFC 4231's, test
// case 2 (key "Jefe").
const (
	rfcKey  = "Jefe"
	rfcData = "what do ya want for nothing?"
	rfcMAC  = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
)

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestGitHubVector(t *testing.T) {
	now := time.Now()
	if err := Verify(GitHub, githubSecret, header(HeaderGitHub, githubSignature), []byte(githubPayload), now); err != nil {
		t.Fatalf("GitHub's documented example refused: %v", err)
	}
	h, _ := Sign(GitHub, githubSecret, "", now, []byte(githubPayload))
	if got := h.Get(HeaderGitHub); got != githubSignature {
		t.Errorf("Sign = %s, want GitHub's %s", got, githubSignature)
	}
	for name, c := range map[string]struct {
		secret, payload string
		h               http.Header
		want            error
	}{
		"tampered body": {githubSecret, "Hello, World?", header(HeaderGitHub, githubSignature), ErrMismatch},
		"wrong secret":  {"another secret", githubPayload, header(HeaderGitHub, githubSignature), ErrMismatch},
		"missing":       {githubSecret, githubPayload, header(), ErrMissing},
		"no prefix":     {githubSecret, githubPayload, header(HeaderGitHub, strings.TrimPrefix(githubSignature, "sha256=")), ErrMismatch},
		"not hex":       {githubSecret, githubPayload, header(HeaderGitHub, "sha256=zz"), ErrMismatch},
		"other header":  {githubSecret, githubPayload, header(HeaderHMAC, githubSignature), ErrMissing},
	} {
		if err := Verify(GitHub, c.secret, c.h, []byte(c.payload), now); !errors.Is(err, c.want) {
			t.Errorf("%s: Verify = %v, want %v", name, err, c.want)
		}
	}
}

func TestHMACSHA256Vector(t *testing.T) {
	now := time.Now()
	if err := Verify(HMACSHA256, rfcKey, header(HeaderHMAC, "sha256="+rfcMAC), []byte(rfcData), now); err != nil {
		t.Fatalf("RFC 4231 test case 2 refused: %v", err)
	}
	if err := Verify(HMACSHA256, rfcKey, header(HeaderHMAC, "sha256="+rfcMAC), []byte(rfcData+"!"), now); !errors.Is(err, ErrMismatch) {
		t.Errorf("a changed body: %v, want ErrMismatch", err)
	}
	if err := Verify(HMACSHA256, rfcKey, header(HeaderGitHub, "sha256="+rfcMAC), []byte(rfcData), now); !errors.Is(err, ErrMissing) {
		t.Errorf("the signature under GitHub's header: %v, want ErrMissing (X-Signature is read)", err)
	}
}

func TestStandardWebhooksVector(t *testing.T) {
	at := time.Unix(swTimestamp, 0)
	h, err := Sign(StandardWebhooks, swSecret, swID, at, []byte(swPayload))
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Get(HeaderSignature); got != swSignature {
		t.Fatalf("Sign = %s, want the spec's %s", got, swSignature)
	}
	vec := header(HeaderID, swID, HeaderTimestamp, "1614265330", HeaderSignature, swSignature)
	if err := Verify(StandardWebhooks, swSecret, vec, []byte(swPayload), at.Add(time.Minute)); err != nil {
		t.Fatalf("the spec's vector refused: %v", err)
	}
	// Any v1 in a space-separated list matches; v2 entries are skipped.
	other := "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
	multi := header(HeaderID, swID, HeaderTimestamp, "1614265330", HeaderSignature, other+" v2,"+strings.TrimPrefix(swSignature, "v1,")+" "+swSignature)
	if err := Verify(StandardWebhooks, swSecret, multi, []byte(swPayload), at); err != nil {
		t.Errorf("a list holding the right v1 refused: %v", err)
	}
	onlyV2 := header(HeaderID, swID, HeaderTimestamp, "1614265330", HeaderSignature, "v2,"+strings.TrimPrefix(swSignature, "v1,"))
	if err := Verify(StandardWebhooks, swSecret, onlyV2, []byte(swPayload), at); !errors.Is(err, ErrMismatch) {
		t.Errorf("only a v2 signature: %v, want ErrMismatch", err)
	}
	wrong := header(HeaderID, swID, HeaderTimestamp, "1614265330", HeaderSignature, other)
	if err := Verify(StandardWebhooks, swSecret, wrong, []byte(swPayload), at); !errors.Is(err, ErrMismatch) {
		t.Errorf("a wrong signature: %v, want ErrMismatch", err)
	}
	// The id is signed: another id with the same signature is refused.
	swapped := header(HeaderID, "msg_other", HeaderTimestamp, "1614265330", HeaderSignature, swSignature)
	if err := Verify(StandardWebhooks, swSecret, swapped, []byte(swPayload), at); !errors.Is(err, ErrMismatch) {
		t.Errorf("another webhook-id: %v, want ErrMismatch", err)
	}
	for _, drop := range []string{HeaderID, HeaderTimestamp, HeaderSignature} {
		h := vec.Clone()
		h.Del(drop)
		if err := Verify(StandardWebhooks, swSecret, h, []byte(swPayload), at); !errors.Is(err, ErrMissing) {
			t.Errorf("without %s: %v, want ErrMissing", drop, err)
		}
	}
}

// A replay outside the 5-minute tolerance is refused both ways, even with
// a signature that matches; inside it, it passes.
func TestStandardWebhooksTolerance(t *testing.T) {
	at := time.Unix(swTimestamp, 0)
	vec := header(HeaderID, swID, HeaderTimestamp, "1614265330", HeaderSignature, swSignature)
	for _, c := range []struct {
		now  time.Time
		want error
	}{
		{at.Add(Tolerance - time.Second), nil},
		{at.Add(-Tolerance + time.Second), nil},
		{at.Add(Tolerance + time.Second), ErrStale},
		{at.Add(-Tolerance - time.Second), ErrStale},
		{time.Now(), ErrStale}, // the vector itself, replayed today
	} {
		if err := Verify(StandardWebhooks, swSecret, vec, []byte(swPayload), c.now); !errors.Is(err, c.want) {
			t.Errorf("at %v from the timestamp: %v, want %v", c.now.Sub(at), err, c.want)
		}
	}
}

func TestSecrets(t *testing.T) {
	for _, scheme := range Schemes() {
		s, err := NewSecret(scheme)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckSecret(scheme, s); err != nil {
			t.Errorf("%s: a new secret %q refused: %v", scheme, s, err)
		}
		h, err := Sign(scheme, s, "msg_1", time.Now(), []byte("{}"))
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(scheme, s, h, []byte("{}"), time.Now()); err != nil {
			t.Errorf("%s: its own signature refused: %v", scheme, err)
		}
	}
	if !strings.HasPrefix(must(NewSecret(StandardWebhooks)), "whsec_") {
		t.Error("a standard_webhooks secret starts whsec_")
	}
	if err := CheckSecret(StandardWebhooks, "whsec_not base64!"); err == nil {
		t.Error("a standard_webhooks secret that is not base64 was accepted")
	}
	if err := CheckSecret(GitHub, ""); err == nil {
		t.Error("an empty secret was accepted")
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}
