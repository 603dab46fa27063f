package settings

import (
	"math"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// Error is a refused setting: where it came from, which key, the value as
// given, why it was refused and what would be accepted.
type Error struct {
	Source  string // file path, environment variable, "command-line flag", or "" for a bare value
	Key     string // canonical key when known, else the key as written
	Value   string // the value as given, already made safe to print
	Reason  string // e.g. "is out of range", "unknown key"
	Allowed string // what would be accepted
	Hint    string // what to do, e.g. "did you mean watchdog.confidence?"
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Source != "" {
		b.WriteString(e.Source)
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	if e.Value != "" {
		b.WriteString(e.Value)
		b.WriteString(" ")
	}
	b.WriteString(e.Reason)
	if e.Allowed != "" {
		b.WriteString("; allowed: ")
		b.WriteString(e.Allowed)
	}
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Validate parses one value given as text (as typed on a command line, in an
// environment variable or in a settings screen) and checks it against the
// key's allowed values. The key may omit the "watchdog." prefix and is
// matched case-insensitively. The result is bool, float64, int or string.
func Validate(key, value string) (any, error) {
	spec, err := specFor("", key)
	if err != nil {
		return nil, err
	}
	return validateSpec("", spec, value)
}

// specFor finds a key or returns an error that names it and suggests the nearest.
func specFor(source, key string) (*KeySpec, error) {
	spec, ok := lookupKey(key)
	if !ok {
		return nil, unknownKey(source, key)
	}
	return spec, nil
}

func unknownKey(source, key string) *Error {
	hint := "hangdog config list shows every key"
	if near := nearestKey(key); near != "" {
		hint = "did you mean " + near + "? (" + hint + ")"
	}
	return &Error{Source: source, Key: printable(key), Reason: "unknown key", Hint: hint}
}

func validateSpec(source string, spec *KeySpec, value string) (any, error) {
	v, reason := spec.parse(strings.TrimSpace(value))
	if reason == "" {
		return v, nil
	}
	shown := quoteValue(value)
	if spec.Key == "watchdog.decisionModel.apiKeyEnv" && looksLikeSecret(strings.TrimSpace(value)) {
		// The message may end up in logs or a terminal scrollback; never echo a key.
		shown = "(value hidden)"
	}
	return nil, &Error{Source: source, Key: spec.Key, Value: shown, Reason: reason, Allowed: spec.Allowed}
}

// quoteValue makes a value safe and unambiguous to print: empty, padded or
// control-character values are quoted, long ones cut.
func quoteValue(s string) string {
	const maxShown = 80
	if r := []rune(s); len(r) > maxShown {
		s = string(r[:maxShown]) + "…"
	}
	if s == "" || strings.TrimSpace(s) != s || strings.IndexFunc(s, notPrintable) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// printable quotes a key only when it would otherwise disturb a terminal.
func printable(s string) string {
	if strings.IndexFunc(s, notPrintable) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

func notPrintable(r rune) bool { return !unicode.IsPrint(r) }

func parseBool(text string) (any, string) {
	switch strings.ToLower(text) {
	case "true", "yes", "on", "1":
		return true, ""
	case "false", "no", "off", "0":
		return false, ""
	}
	return nil, "is not true or false"
}

// numberIn accepts a finite number above lo (or equal to it when loInclusive)
// and at most hi.
func numberIn(lo float64, loInclusive bool, hi float64) func(string) (any, string) {
	return func(text string) (any, string) {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, "is not a number"
		}
		if f < lo || (f == lo && !loInclusive) || f > hi {
			return nil, "is out of range"
		}
		return f, ""
	}
}

func intIn(lo, hi int) func(string) (any, string) {
	return func(text string) (any, string) {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, "is not a number"
		}
		if f != math.Trunc(f) {
			return nil, "is not a whole number"
		}
		if f < float64(lo) || f > float64(hi) {
			return nil, "is out of range"
		}
		return int(f), ""
	}
}

func choiceOf(choices []string) func(string) (any, string) {
	return func(text string) (any, string) {
		for _, c := range choices {
			if strings.EqualFold(text, c) {
				return c, ""
			}
		}
		return nil, "is not one of the choices"
	}
}

func parsePlainText(text string) (any, string) {
	if strings.IndexFunc(text, notPrintable) >= 0 {
		return nil, "contains control characters"
	}
	return text, ""
}

func parseURL(text string) (any, string) {
	if text == "" {
		return "", ""
	}
	if strings.IndexFunc(text, notPrintable) >= 0 {
		return nil, "contains control characters"
	}
	u, err := url.Parse(text)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "is not an http:// or https:// URL"
	}
	return text, ""
}

// parseHostPort takes HOST:PORT ([IPv6]:PORT), the host an IP address or
// a host name.
func parseHostPort(text string) (any, string) {
	// Not net.SplitHostPort: settings is linked by every `hangdog run`, and
	// package net is not (netip is small).
	t := strings.TrimSpace(text)
	i := strings.LastIndexByte(t, ':')
	if i < 0 {
		return nil, "is not HOST:PORT"
	}
	host, port := t[:i], t[i+1:]
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
		if _, err := netip.ParseAddr(host); err != nil {
			return nil, "has a bracketed host that is not an IPv6 address"
		}
	} else if strings.Contains(host, ":") {
		return nil, "has an IPv6 host without brackets (write [::1]:17465)"
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return nil, "has no port from 0 to 65535"
	}
	if host == "" {
		return nil, "has no host (give 127.0.0.1 for this machine only, 0.0.0.0 for every interface)"
	}
	if _, err := netip.ParseAddr(host); err != nil {
		for _, label := range strings.Split(host, ".") {
			if label == "" || len(label) > 63 || strings.IndexFunc(label, func(r rune) bool {
				return !(r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
			}) >= 0 {
				return nil, "has a host that is neither an IP address nor a host name"
			}
		}
	}
	return strings.TrimSpace(text), ""
}

func parseEnvName(text string) (any, string) {
	if text == "" {
		return "", ""
	}
	if looksLikeSecret(text) {
		return nil, "looks like an API key itself; put the key in an environment variable and give that variable's name"
	}
	for i, r := range text {
		letter := r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return nil, "is not an environment variable name"
		}
	}
	return text, ""
}

// looksLikeSecret spots an API key pasted where a variable name belongs:
// provider prefixes, or a long run with no underscore (variable names this
// long are words joined by underscores; keys are not).
func looksLikeSecret(text string) bool {
	// Case matters: keys use these lower-case prefixes, while a variable such
	// as SK_TOKEN is a legitimate name.
	for _, p := range []string{"sk-", "sk_", "pk-", "rk-", "xai-", "gsk_", "ghp_", "gho_", "github_pat_", "AIza"} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	if strings.HasPrefix(strings.ToLower(text), "bearer ") {
		return true
	}
	return len(text) > 64 && !strings.Contains(text, "_")
}

// parseNATSURLs takes a comma-separated list of NATS server URLs (the form
// nats.go's Connect takes). A URL's user and password are allowed here but
// never shown (see fleet.Redact).
func parseNATSURLs(text string) (any, string) {
	t := strings.TrimSpace(text)
	if t == "" {
		return "", ""
	}
	if strings.IndexFunc(t, notPrintable) >= 0 {
		return nil, "contains control characters"
	}
	for _, one := range strings.Split(t, ",") {
		u, err := url.Parse(strings.TrimSpace(one))
		if err != nil || u.Host == "" {
			return nil, "is not a list of nats:// URLs (e.g. nats://nats1:4222,nats://nats2:4222)"
		}
		switch u.Scheme {
		case "nats", "tls", "ws", "wss":
		default:
			return nil, "has a URL that is not nats://, tls://, ws:// or wss://"
		}
	}
	return t, ""
}

// parseAbsPath takes an absolute file path, or empty.
func parseAbsPath(text string) (any, string) {
	if text == "" {
		return "", ""
	}
	if strings.IndexFunc(text, notPrintable) >= 0 {
		return nil, "contains control characters"
	}
	if !strings.HasPrefix(text, "/") {
		return nil, "is not an absolute path"
	}
	return text, ""
}

// parseStreamName takes a JetStream stream name hangdog may create.
func parseStreamName(text string) (any, string) {
	if text == "" || len(text) > 32 {
		return nil, "is not 1-32 characters long"
	}
	for _, r := range text {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return nil, "has a character other than letters, digits, '_' or '-'"
		}
	}
	return text, ""
}

// parseHostName takes the name a sandbox goes by in subjects (escaped
// there, so any printable text does).
func parseHostName(text string) (any, string) {
	if len(text) > 64 {
		return nil, "is longer than 64 characters"
	}
	if strings.IndexFunc(text, notPrintable) >= 0 {
		return nil, "contains control characters"
	}
	return text, ""
}
