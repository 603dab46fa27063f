package jev

import (
	"regexp"
	"strings"
	"sync"
)

// redacted replaces every secret Redact finds.
const redacted = "[REDACTED]"

// redaction is one kind of secret. Go regexps are slow over long text, so
// each runs only on the lines that hold one of its hints (lower case).
type redaction struct {
	hints []string
	re    *regexp.Regexp
	// with is the replacement; $1 keeps the part before the secret (a key
	// name, a scheme) so the text still reads.
	with string
}

// secretWords end key names whose values are secrets: PASSWORD,
// db_password, apiKey, client-secret, GITHUB_TOKEN…
var secretRoots = []string{"pass", "secret", "token", "key", "credential"}

var secretWords = [...]string{"password", "passwd", "passphrase", "secret", "token", "apikey", "api_key", "api-key", "accesskey", "access_key", "access-key", "privatekey", "private_key", "private-key", "credential"}

// pemBlock is a PEM private key, whole, or to the end if the END line is
// missing. It spans lines, so it runs on the whole text.
var pemBlock = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?s:.*?)(-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)`)
})

// lineRedactions are compiled on first use, not at start-up: the supervisor
// that links this package must stay small while idle.
var lineRedactions = sync.OnceValue(func() []redaction {
	return []redaction{
		// Authorization headers and bare bearer tokens.
		{[]string{"authorization"}, regexp.MustCompile(`(?i)(authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|bot|digest)?\s*)[^\s"',;]+`), "${1}" + redacted},
		{[]string{"bearer"}, regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}`), "${1}" + redacted},
		// Well-known token shapes.
		{[]string{"sk-"}, regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`), redacted},
		// Google API keys (AIza and 35 more; shorter ones are cut-off keys).
		{[]string{"aiza"}, regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{20,}`), redacted},
		{[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`), redacted},
		{[]string{"akia", "asia"}, regexp.MustCompile(`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`), redacted},
		{[]string{"xox"}, regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`), redacted},
		{[]string{"eyj"}, regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`), redacted},
		{[]string{"glpat", "npm_", "pypi", "hf_", "dop_v1", "shpat", "sq0atp"}, regexp.MustCompile(`\b(?:glpat|npm|pypi|hf|dop_v1|shpat|sq0atp)[-_][A-Za-z0-9_-]{20,}`), redacted},
		// Passwords in URLs: scheme://user:password@host.
		{[]string{"://"}, regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]*:)[^@\s/]+@`), "${1}" + redacted + "@"},
		// --password VALUE and friends as separate words.
		{[]string{"--"}, regexp.MustCompile(`(?i)(--(?:password|passwd|token|secret|api-key|apikey|access-key)\s+)([^\s-][^\s]*)`), "${1}" + redacted},
	}
})

// Redact replaces the secrets in s — authorization headers, API tokens of the
// usual shapes (sk-… — short ones when they hold a digit —, AIza…, ghp_…,
// github_pat_…, AKIA…, xoxb-…, JWTs), values of
// password=/token=/secret=/api_key= and the like, passwords in URLs, PEM
// private key blocks — with [REDACTED]. It runs before any text leaves the
// machine and before output is quoted as evidence. It errs on the side of
// hiding too much.
func Redact(s string) string {
	if s == "" {
		return s
	}
	if strings.Contains(s, "-----BEGIN") {
		s = pemBlock().ReplaceAllString(s, "-----BEGIN PRIVATE KEY----- "+redacted+" -----END PRIVATE KEY-----")
	}
	if !strings.Contains(s, "\n") {
		return redactLine(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = redactLine(l)
	}
	return strings.Join(lines, "\n")
}

func redactLine(line string) string {
	if looksLikePEMBody(line) {
		// A line of a key whose BEGIN line scrolled out of the tail.
		return redacted
	}
	line = redactAssignments(line)
	lower := ""
	for _, r := range lineRedactions() {
		if lower == "" {
			lower = strings.ToLower(line)
		}
		if !containsAny(lower, r.hints) {
			continue
		}
		line = r.re.ReplaceAllString(line, r.with)
		lower = ""
	}
	if strings.Contains(line, "sk-") {
		line = redactShortSK(line)
	}
	return line
}

// shortSK is an sk- token too short for the general rule: a test key, a
// proxy's key (LiteLLM's sk-1234), a truncated one.
var shortSK = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{4,15}\b`) })

// redactShortSK hides short sk- tokens that hold a digit: a key has one
// almost surely, while names such as sk-learn or sk-learn-contrib have none
// and stay.
func redactShortSK(line string) string {
	return shortSK().ReplaceAllStringFunc(line, func(m string) string {
		if strings.ContainsAny(m[3:], "0123456789") {
			return redacted
		}
		return m
	})
}

// looksLikePEMBody reports a 60–76 character line of pure base64, the shape
// of the lines inside a PEM block.
func looksLikePEMBody(line string) bool {
	line = strings.TrimSuffix(line, "\r")
	if len(line) < 60 || len(line) > 78 {
		return false
	}
	body := strings.TrimRight(line, "=")
	if len(line)-len(body) > 2 || len(body) > 76 {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/') {
			return false
		}
	}
	return true
}

// redactAssignments replaces the values of key=value, key: value and
// "key": "value" where the key names a secret. Written by hand: the regexp
// for it was the slowest part of redacting a long tail.
func redactAssignments(line string) string {
	lower := asciiLower(line) // same length as line, so indexes agree
	if !containsAny(lower, secretRoots) {
		return line
	}
	var b strings.Builder
	done := 0 // line[:done] is written to b
	for i := 0; i < len(lower); {
		w := secretWordAt(lower, i)
		if w == 0 {
			i++
			continue
		}
		j := i + w
		for j < len(line) && isNameByte(line[j]) {
			j++
		}
		if j < len(line) && (line[j] == '"' || line[j] == '\'') {
			j++
		}
		j = skipSpaces(line, j)
		if j >= len(line) || (line[j] != ':' && line[j] != '=') {
			i += w
			continue
		}
		j = skipSpaces(line, j+1)
		start, end := valueSpan(line, j)
		if end <= start {
			i += w
			continue
		}
		b.WriteString(line[done:start])
		b.WriteString(redacted)
		done, i = end, end
	}
	if done == 0 {
		return line
	}
	b.WriteString(line[done:])
	return b.String()
}

func secretWordAt(lower string, i int) int {
	switch lower[i] {
	case 'p', 's', 't', 'a', 'c':
	default:
		return 0
	}
	for _, w := range secretWords {
		if strings.HasPrefix(lower[i:], w) {
			return len(w)
		}
	}
	return 0
}

// valueSpan finds the value at j: inside quotes if quoted, else up to a
// space or a separator. An empty span means there is no value.
func valueSpan(line string, j int) (start, end int) {
	if j >= len(line) {
		return j, j
	}
	if q := line[j]; q == '"' || q == '\'' {
		if k := strings.IndexByte(line[j+1:], q); k >= 0 {
			return j + 1, j + 1 + k
		}
		return j + 1, len(line)
	}
	if line[j] == '=' { // ==, a comparison
		return j, j
	}
	end = j
	for end < len(line) && !strings.ContainsRune(" \t\"'&;,})", rune(line[end])) {
		end++
	}
	return j, end
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// asciiLower lowers ASCII letters only, byte by byte, so the result indexes
// like s even where s is not valid UTF-8.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
