package settings

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateAcceptsAndNormalises(t *testing.T) {
	cases := []struct {
		key, text string
		want      any
	}{
		{"enabled", "yes", true},
		{"watchdog.enabled", "OFF", false},
		{"WatchBash", "1", true},
		{"watchBgTasks", "0", false},
		{"debug", " on ", true},
		{"intervalMin", "0.05", 0.05},
		{"intervalMin", "10080", 10080.0},
		{"firstCheckMin", "0", 0.0},
		{"confidence", "1", 1.0},
		{"confidence", ".5", 0.5},
		{"agreeChecks", "20", 20},
		{"agreeChecks", "3.0", 3},
		{"action", "Kill", "kill"},
		{"otherTools", "abort-turn", "abort-turn"},
		{"inputWaitSec", "2.5", 2.5},
		{"decisionModel.source", "CUSTOM", "custom"},
		{"watchdog.decisionmodel.backend", "openai", "openai"},
		{"decisionModel.url", "https://api.example.com/v1", "https://api.example.com/v1"},
		{"decisionModel.url", "", ""},
		{"decisionModel.model", "gpt-4o-mini", "gpt-4o-mini"},
		{"decisionModel.apiKeyEnv", "OPENAI_API_KEY", "OPENAI_API_KEY"},
		{"decisionModel.apiKeyEnv", "SK_TOKEN", "SK_TOKEN"},
		{"decisionModel.timeoutSec", "0.5", 0.5},
	}
	for _, c := range cases {
		got, err := Validate(c.key, c.text)
		if err != nil {
			t.Errorf("Validate(%q, %q): %v", c.key, c.text, err)
			continue
		}
		if got != c.want {
			t.Errorf("Validate(%q, %q) = %#v, want %#v", c.key, c.text, got, c.want)
		}
	}
}

func TestValidateRefusesWithKeyValueReasonAndAllowed(t *testing.T) {
	cases := []struct {
		key, text string
		canonical string
		reason    string
	}{
		{"enabled", "maybe", "watchdog.enabled", "is not true or false"},
		{"intervalMin", "0", "watchdog.intervalMin", "is out of range"},
		{"intervalMin", "-1", "watchdog.intervalMin", "is out of range"},
		{"intervalMin", "3m", "watchdog.intervalMin", "is not a number"},
		{"intervalMin", "1e300", "watchdog.intervalMin", "is out of range"},
		{"intervalMin", "NaN", "watchdog.intervalMin", "is not a number"},
		{"firstCheckMin", "-0.5", "watchdog.firstCheckMin", "is out of range"},
		{"confidence", "1.7", "watchdog.confidence", "is out of range"},
		{"confidence", "", "watchdog.confidence", "is not a number"},
		{"agreeChecks", "0", "watchdog.agreeChecks", "is out of range"},
		{"agreeChecks", "21", "watchdog.agreeChecks", "is out of range"},
		{"agreeChecks", "2.5", "watchdog.agreeChecks", "is not a whole number"},
		{"action", "explode", "watchdog.action", "is not one of the choices"},
		{"otherTools", "abort", "watchdog.otherTools", "is not one of the choices"},
		{"inputWaitSec", "-1", "watchdog.inputWaitSec", "is out of range"},
		{"decisionModel.source", "remote", "watchdog.decisionModel.source", "is not one of the choices"},
		{"decisionModel.backend", "ollama", "watchdog.decisionModel.backend", "is not one of the choices"},
		{"decisionModel.url", "ftp://host/x", "watchdog.decisionModel.url", "is not an http:// or https:// URL"},
		{"decisionModel.url", "localhost:8080", "watchdog.decisionModel.url", "is not an http:// or https:// URL"},
		{"decisionModel.model", "gpt\x1b[2J", "watchdog.decisionModel.model", "contains control characters"},
		{"decisionModel.apiKeyEnv", "1KEY", "watchdog.decisionModel.apiKeyEnv", "is not an environment variable name"},
		{"decisionModel.apiKeyEnv", "MY-KEY", "watchdog.decisionModel.apiKeyEnv", "is not an environment variable name"},
		{"decisionModel.timeoutSec", "0", "watchdog.decisionModel.timeoutSec", "is out of range"},
	}
	for _, c := range cases {
		_, err := Validate(c.key, c.text)
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("Validate(%q, %q) = %v, want *Error", c.key, c.text, err)
			continue
		}
		spec, _ := lookupKey(c.key)
		msg := err.Error()
		want := c.canonical + ": " + quoteValue(c.text) + " " + c.reason + "; allowed: " + spec.Allowed
		if msg != want {
			t.Errorf("Validate(%q, %q):\n got  %s\n want %s", c.key, c.text, msg, want)
		}
	}
}

func TestValidateNeverEchoesAnAPIKey(t *testing.T) {
	for _, secret := range []string{
		"sk-proj-abcdefghijklmnop",
		"AIzaSyA1234567890abcdefghijklmnopqrstu",
		strings.Repeat("AbC123", 12), // 72 characters, no underscore
	} {
		_, err := Validate("decisionModel.apiKeyEnv", secret)
		if err == nil {
			t.Errorf("Validate accepted a key-looking value %q", secret)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), secret[:12]) {
			t.Errorf("error echoes the key: %v", err)
		}
		if !strings.Contains(err.Error(), "looks like an API key") {
			t.Errorf("error does not say why: %v", err)
		}
	}
	long := strings.Repeat("LONG_NAME_", 8) // long, but a variable name
	if _, err := Validate("decisionModel.apiKeyEnv", long); err != nil {
		t.Errorf("refused a long variable name: %v", err)
	}
}

func TestValidateUnknownKeySuggestsNearest(t *testing.T) {
	cases := []struct{ key, suggestion string }{
		{"confidance", "did you mean watchdog.confidence?"},
		{"watchdog.interval_min", "did you mean watchdog.intervalMin?"},
		{"decisionModel.modle", "did you mean watchdog.decisionModel.model?"},
		{"agree-checks", "did you mean watchdog.agreeChecks?"},
		{"timeoutsecs", "did you mean watchdog.decisionModel.timeoutSec?"},
	}
	for _, c := range cases {
		_, err := Validate(c.key, "1")
		if err == nil || !strings.Contains(err.Error(), c.key+": unknown key") || !strings.Contains(err.Error(), c.suggestion) {
			t.Errorf("Validate(%q) = %v, want it named with %q", c.key, err, c.suggestion)
		}
	}
	_, err := Validate("frobnicator", "1")
	if err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("an unrelated key got a suggestion: %v", err)
	}
}

func TestKeysDescribeEveryKeyWithDefaultThatValidates(t *testing.T) {
	keys := Keys()
	if len(keys) != 34 {
		t.Fatalf("Keys() has %d keys, the table has 34", len(keys))
	}
	for _, k := range keys {
		if k.Help == "" || k.Allowed == "" {
			t.Errorf("%s lacks help or allowed text", k.Key)
		}
		if (k.Kind == KindChoice) != (len(k.Choices) > 0) {
			t.Errorf("%s: kind %s with choices %v", k.Key, k.Kind, k.Choices)
		}
		got, err := Validate(k.Key, formatValue(k.Default))
		if err != nil || got != k.Default {
			t.Errorf("%s: default %#v does not validate to itself: %#v, %v", k.Key, k.Default, got, err)
		}
	}
	keys[0].Choices = append(keys[0].Choices, "mutated")
	keys[5].Choices[0] = "mutated"
	if Keys()[5].Choices[0] == "mutated" || len(Keys()[0].Choices) != 0 {
		t.Error("Keys() exposes the package's own table")
	}
}

func TestValidateEventsSettings(t *testing.T) {
	for _, c := range []struct {
		key, text string
		ok        bool
	}{
		{"events.sink", "", true},
		{"events.sink", "nats://a:4222, nats://b:4222", true},
		{"events.sink", "wss://nats.example:443", true},
		{"events.sink", "http://a:4222", false},
		{"events.sink", "nats://", false},
		{"events.credentials", "relative/nats.creds", false},
		{"events.credentials", "/home/u/.nats/u.creds", true},
		{"events.stream", "HANGDOG_EVENTS", true},
		{"events.stream", "a.b", false},
		{"events.stream", "", false},
		{"events.replicas", "6", false},
		{"events.replicas", "0", true},
		{"events.host", "box 1.example", true},
		{"events.host", "a\x01", false},
	} {
		_, err := Validate(c.key, c.text)
		if (err == nil) != c.ok {
			t.Errorf("Validate(%s, %q) = %v, want ok=%v", c.key, c.text, err, c.ok)
		}
	}
}
