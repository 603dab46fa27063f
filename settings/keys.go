package settings

import (
	"slices"
	"strings"

	"github.com/hangdog/hangdog/settings/watchdogconf"
)

// Kinds of value a key holds; they tell a settings screen which editor to show.
const (
	KindBool   = "bool"
	KindNumber = "number"
	KindInt    = "int"
	KindChoice = "choice"
	KindString = "string"
)

// Limits that keep minutes and seconds far inside time.Duration's range, so a
// typo like 1e300 is refused instead of overflowing into a negative interval.
const (
	maxMinutes     = 10080 // one week
	maxWaitSeconds = 86400 // one day
	maxTimeoutSec  = 3600
	maxKeepDays    = 3650 // ten years
)

// KeySpec describes one configuration key, independent of any loaded values.
type KeySpec struct {
	Key     string   // canonical dotted name, e.g. "watchdog.intervalMin"
	Kind    string   // KindBool, KindNumber, KindInt, KindChoice or KindString
	Default any      // bool, float64, int or string, matching Kind
	Allowed string   // what a value may be, in words
	Help    string   // one line saying what the key does
	Choices []string // the allowed values of a KindChoice key
	// UserOnly keys are refused in a project file: a cloned repository must
	// not choose, for instance, where the API key is sent or how long the
	// user's other tasks are kept. userOnlyWhy says which.
	UserOnly bool
	// userOnlyWhy ends the sentence "a project file comes with the
	// repository, and must not …".
	userOnlyWhy string

	parse func(text string) (any, string) // value, or "" and the reason it is refused
}

const boolAllowed = "true or false (also yes/no, on/off, 1/0)"

// sendsWhy is why the remote model's address and key are user-only.
const sendsWhy = "choose where your API key and command output are sent"

var keySpecs = []KeySpec{
	{
		Key: "watchdog.enabled", Kind: KindBool, Default: true, Allowed: boolAllowed,
		Help:  "Check supervised commands and act on stuck ones; false runs them unwatched.",
		parse: parseBool,
	},
	{
		Key: "watchdog.intervalMin", Kind: KindNumber, Default: 3.0,
		Allowed: "a number of minutes greater than 0 and at most 10080 (fractions allowed, e.g. 0.05)",
		Help:    "Minutes between checks of a running command after its first check.",
		parse:   numberIn(0, false, maxMinutes),
	},
	{
		Key: "watchdog.firstCheckMin", Kind: KindNumber, Default: 2.0,
		Allowed: "a number of minutes from 0 to 10080 (fractions allowed, e.g. 0.5)",
		Help:    "Minutes a command runs before its first check.",
		parse:   numberIn(0, true, maxMinutes),
	},
	{
		Key: "watchdog.confidence", Kind: KindNumber, Default: 0.5,
		Allowed: "a number from 0 to 1",
		Help:    "Lowest decision-model confidence that counts towards a verdict.",
		parse:   numberIn(0, true, 1),
	},
	{
		Key: "watchdog.agreeChecks", Kind: KindInt, Default: 2,
		Allowed: "a whole number from 1 to 20",
		Help:    "Checks in a row that must agree before the action is taken.",
		parse:   intIn(1, 20),
	},
	{
		Key: "watchdog.action", Kind: KindChoice, Default: "background",
		Choices: []string{"background", "kill", "warn"},
		Help:    "What happens to a stuck command: move it to the background, kill it, or only warn.",
	},
	{
		Key: "watchdog.watchBash", Kind: KindBool, Default: true, Allowed: boolAllowed,
		Help:  "Watch commands run through the agent's bash tool.",
		parse: parseBool,
	},
	{
		Key: "watchdog.watchBgTasks", Kind: KindBool, Default: false, Allowed: boolAllowed,
		Help:  "Keep checking tasks that are already in the background.",
		parse: parseBool,
	},
	{
		Key: "watchdog.otherTools", Kind: KindChoice, Default: watchdogconf.OtherToolsOff,
		Choices: []string{watchdogconf.OtherToolsOff, watchdogconf.OtherToolsWarn, watchdogconf.OtherToolsAbort},
		Help:    "What a stuck call of an MCP server's tool behind `hangdog mcp-proxy` gets: nothing (relayed untouched), a warning to the client and in its result, or cancelled and answered at once with an error so the agent's turn goes on.",
	},
	{
		Key: "watchdog.inputWaitSec", Kind: KindNumber, Default: 3.0,
		Allowed: "a number of seconds from 0 to 86400 (fractions allowed)",
		Help:    "Seconds a command blocked reading the terminal with nobody at it waits before it is acted on.",
		parse:   numberIn(0, true, maxWaitSeconds),
	},
	{
		Key: "watchdog.debug", Kind: KindBool, Default: false, Allowed: boolAllowed,
		Help:  "Write one line per check to the debug log.",
		parse: parseBool,
	},
	{
		Key: "watchdog.decisionModel.source", Kind: KindChoice, Default: "inherit",
		Choices: []string{"inherit", "custom"},
		Help:    "inherit: use a remote decision model only where the environment configures one; custom: use the backend below.",
	},
	{
		Key: "watchdog.decisionModel.backend", Kind: KindChoice, Default: "local",
		Choices: []string{"local", "typesafe", "openai"},
		Help:    "Decision model: local (built in, no network), typesafe (HTTP decision API) or openai (OpenAI-compatible endpoint).",
	},
	{
		Key: "watchdog.decisionModel.url", Kind: KindString, Default: "",
		Allowed:     "an http:// or https:// URL, or empty for the backend's default",
		Help:        "Endpoint of the remote decision model; empty uses the backend's default.",
		UserOnly:    true,
		userOnlyWhy: sendsWhy,
		parse:       parseURL,
	},
	{
		Key: "watchdog.decisionModel.model", Kind: KindString, Default: "",
		Allowed: "a model name, or empty for the backend's default",
		Help:    "Model to ask; empty uses the backend's default.",
		parse:   parsePlainText,
	},
	{
		Key: "watchdog.decisionModel.apiKeyEnv", Kind: KindString, Default: "",
		Allowed:     "the name of an environment variable holding the API key (never the key itself), or empty",
		Help:        "Name of the environment variable that holds the remote decision model's API key.",
		UserOnly:    true,
		userOnlyWhy: sendsWhy,
		parse:       parseEnvName,
	},
	{
		Key: "watchdog.decisionModel.timeoutSec", Kind: KindNumber, Default: 20.0,
		Allowed: "a number of seconds greater than 0 and at most 3600",
		Help:    "Seconds to wait for the remote decision model before the local judge answers alone.",
		parse:   numberIn(0, false, maxTimeoutSec),
	},
	{
		Key: "tasks.keepDays", Kind: KindNumber, Default: 7.0,
		Allowed:     "a number of days from 0 to 3650 (fractions allowed); 0 keeps ended tasks forever",
		Help:        "Days ended tasks (output and result) and events are kept; older ones are deleted, at most once an hour. 0 keeps everything.",
		UserOnly:    true,
		userOnlyWhy: "decide how long the output of your other projects' tasks is kept",
		parse:       numberIn(0, true, maxKeepDays),
	},
	{
		Key: "tasks.onSessionEnd", Kind: KindChoice, Default: "kill",
		Choices: []string{"kill", "keep"},
		Help:    "What happens to a session's running tasks when the session ends (an MCP client gone, Claude Code's SessionEnd): kill them and all they started, or keep them running.",
	},
	{
		Key: "tasks.agentProfile", Kind: KindBool, Default: true, Allowed: boolAllowed,
		Help:  "Give commands nobody is at (MCP, run --json, hooks) an environment without pagers, editors or credential prompts; false leaves the environment as it is.",
		parse: parseBool,
	},
	// The watchers' limits. The group is "watchers", not "watch":
	// HANGDOG_WATCH_CURSOR is what a command watcher is handed, and the
	// loader refuses unknown variables of a group's prefix. Each is read
	// when a watcher is created (watch create, watch_create) or resumed and
	// kept in its spec, so a runner behaves as its watcher was created.
	{
		Key: "watchers.maxActivePerOwner", Kind: KindInt, Default: 10,
		Allowed:     "a whole number from 1 to 100",
		Help:        "Most watchers one owner (a session) may have active at once; another create or resume is refused.",
		UserOnly:    true,
		userOnlyWhy: "let an agent in it keep more watchers running on your machine than you allow",
		parse:       intIn(1, 100),
	},
	{
		Key: "watchers.maxFires", Kind: KindInt, Default: 20,
		Allowed: "a whole number from 1 to 100",
		Help:    "Fires a watcher gets when its create gives no --max-fires / max_fires; then it pauses.",
		parse:   intIn(1, 100),
	},
	{
		Key: "watchers.maxWakesPerHour", Kind: KindInt, Default: 12,
		Allowed: "a whole number from 1 to 60",
		Help:    "Wakes an hour that pause a watcher, when its create gives no --max-wakes-per-hour.",
		parse:   intIn(1, 60),
	},
	{
		Key: "watchers.graceChecks", Kind: KindInt, Default: 5,
		Allowed: "a whole number from 1 to 100",
		Help:    "Unreachable checks in a row (timeout, 5xx, 429) before the owner is told once and the watcher pauses.",
		parse:   intIn(1, 100),
	},
	{
		Key: "watchers.maxErrors", Kind: KindInt, Default: 3,
		Allowed: "a whole number from 1 to 100",
		Help:    "Failed checks in a row (404, a missing file) before the watcher pauses.",
		parse:   intIn(1, 100),
	},
	{
		Key: "watchers.judgeFailures", Kind: KindInt, Default: 3,
		Allowed: "a whole number from 1 to 20",
		Help:    "Failed asks of the decision model in a row on one match (timeout, 5xx, a malformed answer) before a watcher with a condition fires anyway, marked not checked.",
		parse:   intIn(1, 20),
	},
	{
		Key: "watchers.networkIntervalFloorSec", Kind: KindNumber, Default: 60.0,
		Allowed:     "a number of seconds from 1 to 3600",
		Help:        "Shortest interval an http or rss watcher may ask for.",
		UserOnly:    true,
		userOnlyWhy: "make your machine ask other people's servers more often than you allow",
		parse:       numberIn(1, true, 3600),
	},
	// The receiver of trigger and approval links (`hangdog serve`).
	{
		Key: "serve.address", Kind: KindString, Default: DefaultServeAddress,
		Allowed:     "HOST:PORT with an IP address or a host name and a port from 0 to 65535 (0: any free port), e.g. 127.0.0.1:17465",
		Help:        "Where hangdog serve, the one receiver of trigger and approval links, listens; loopback by default, so nothing outside this machine reaches it.",
		UserOnly:    true,
		userOnlyWhy: "open hangdog's receiver to other machines",
		parse:       parseHostPort,
	},
	{
		Key: "serve.sink", Kind: KindString, Default: "",
		Allowed:     "NATS server URLs (nats://, tls://, ws:// or wss://), comma-separated, or empty for none",
		Help:        "NATS JetStream servers of the fleet's links (see docs/fleet.md): links made here are called at the fleet receiver ($HANGDOG_RECEIVER_URL) and their deliveries come from these servers, and hangdog serve with it set is that receiver; credentials as for events.sink (events.credentials). Empty: this machine's receiver.",
		UserOnly:    true,
		userOnlyWhy: "send your links' deliveries and approval decisions through another machine",
		parse:       parseNATSURLs,
	},
	// The fleet: events out to a NATS JetStream stream (package fleet).
	// Without events.sink nothing of it is loaded or started.
	{
		Key: "events.sink", Kind: KindString, Default: "",
		Allowed:     "NATS server URLs (nats://, tls://, ws:// or wss://), comma-separated, or empty for none",
		Help:        "NATS JetStream servers every event of this home is also published to (see docs/fleet.md); empty keeps events on this machine only.",
		UserOnly:    true,
		userOnlyWhy: "send your tasks' events and output to another machine",
		parse:       parseNATSURLs,
	},
	{
		Key: "events.credentials", Kind: KindString, Default: "",
		Allowed:     "an absolute path to a NATS credentials file (a .creds file, or a file holding a token), or empty for the environment",
		Help:        "Credentials for events.sink and wake --from; empty reads NATS_CREDS, NATS_TOKEN or NATS_USER and NATS_PASSWORD from the environment.",
		UserOnly:    true,
		userOnlyWhy: "choose which credentials hangdog presents to which server",
		parse:       parseAbsPath,
	},
	{
		Key: "events.stream", Kind: KindString, Default: "HANGDOG_EVENTS",
		Allowed:     "1-32 letters, digits, '_' or '-'",
		Help:        "Name of the JetStream stream the events go to; created on first use when missing.",
		UserOnly:    true,
		userOnlyWhy: "choose where your events are sent",
		parse:       parseStreamName,
	},
	{
		Key: "events.replicas", Kind: KindInt, Default: 0,
		Allowed: "a whole number from 0 to 5; 0 sizes it to the cluster (3 with 3 or more servers, else 1)",
		Help:    "Replicas of the stream when hangdog creates it; an existing stream keeps its own.",
		parse:   intIn(0, 5),
	},
	{
		Key: "events.host", Kind: KindString, Default: "",
		Allowed:     "a name of 1-64 printable characters, or empty for this machine's host name",
		Help:        "The name this sandbox goes by in the events' subjects (hangdog.events.HOST.…); empty uses the host name.",
		UserOnly:    true,
		userOnlyWhy: "make this machine's events pass for another's",
		parse:       parseHostName,
	},
}

// DefaultServeAddress is serve.address's default: loopback only, on a
// fixed port so a link's URL stays the same across restarts of the
// receiver.
const DefaultServeAddress = "127.0.0.1:17465"

func init() {
	for i := range keySpecs {
		s := &keySpecs[i]
		if s.Kind == KindChoice {
			s.Allowed = "one of " + strings.Join(s.Choices, ", ")
			s.parse = choiceOf(s.Choices)
		}
	}
}

// Keys describes every configuration key, in a stable, meaningful order.
func Keys() []KeySpec {
	out := make([]KeySpec, len(keySpecs))
	copy(out, keySpecs)
	for i := range out {
		out[i].Choices = append([]string(nil), out[i].Choices...)
	}
	return out
}

// lookupKey finds a key however it is cased. A watchdog key may leave out
// its "watchdog." prefix; keys of other groups (tasks.keepDays) are named
// whole.
func lookupKey(name string) (*KeySpec, bool) {
	lower := strings.ToLower(strings.TrimSpace(name))
	for _, candidate := range []string{lower, "watchdog." + lower} {
		for i := range keySpecs {
			if strings.ToLower(keySpecs[i].Key) == candidate {
				return &keySpecs[i], true
			}
		}
	}
	return nil, false
}

// isGroup reports whether a dotted path (lower case) names a group of keys,
// such as "watchdog" or "watchdog.decisionmodel".
func isGroup(lowerPath string) bool {
	for _, s := range keySpecs {
		if strings.HasPrefix(strings.ToLower(s.Key), lowerPath+".") {
			return true
		}
	}
	return false
}

// canonicalGroup returns a group's path in canonical case.
func canonicalGroup(lowerPath string) string {
	for _, s := range keySpecs {
		if strings.HasPrefix(strings.ToLower(s.Key), lowerPath+".") {
			return s.Key[:len(lowerPath)]
		}
	}
	return lowerPath
}

// envName is the environment variable that sets a key.
func envName(key string) string {
	return "HANGDOG_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// nearestKey suggests the known key closest to a mistyped one, or "" when
// none is close enough to be a plausible typo. Separators and case are
// ignored so interval_min and IntervalMin both find intervalMin.
func nearestKey(name string) string {
	norm := func(s string) string {
		s = strings.ToLower(s)
		s = strings.NewReplacer("_", "", "-", "").Replace(s)
		return strings.TrimPrefix(s, "watchdog.")
	}
	want := norm(name)
	best, bestDist := "", -1
	for _, key := range suggestable() {
		candidate := norm(key)
		d := editDistance(want, candidate)
		// A bare leaf name ("confidance") is compared with the leaf too, so a
		// missing group prefix does not cost a dozen edits.
		if leaf := candidate[strings.LastIndex(candidate, ".")+1:]; leaf != candidate {
			if dl := editDistance(want, leaf); dl < d {
				d = dl
			}
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = key, d
		}
	}
	// Beyond a third of the word it is a different word, not a typo.
	if bestDist > max(2, len([]rune(want))/3) {
		return ""
	}
	return best
}

// suggestable lists every key and every group ("watchdog",
// "watchdog.decisionModel"), since a typo can be in either.
func suggestable() []string {
	var out []string
	for _, s := range keySpecs {
		parts := strings.Split(s.Key, ".")
		for i := 1; i < len(parts); i++ {
			if g := strings.Join(parts[:i], "."); !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
		out = append(out, s.Key)
	}
	return out
}

// editDistance is the Levenshtein distance between two strings.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
