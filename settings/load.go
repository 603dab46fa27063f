package settings

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/viper"
)

// Where a value came from, lowest layer to highest.
const (
	SourceDefault = "default"
	SourceUser    = "user"
	SourceProject = "project"
	SourceEnv     = "env"
	SourceFlag    = "flag"
)

// flagSource names the flag layer in error messages.
const flagSource = "command-line flag"

// defaultsSource names a front end's defaults (Options.Defaults).
const defaultsSource = "the caller's defaults"

// Options says where Load looks for each layer.
type Options struct {
	Dir   string            // where the project file search starts; "" = the working directory
	Flags map[string]string // key → value as text, from the command line; the highest layer
	// Env looks up environment variables; nil = os.LookupEnv. Only with nil
	// does Load also refuse unknown HANGDOG_WATCHDOG_* variables, since a
	// lookup function cannot list what it holds.
	Env      func(string) (string, bool)
	UserFile string // the user config file; "" = UserFile()
	// KeepGoing makes a bad file entry or environment variable a warning
	// (Settings.Warnings) instead of an error: the entry is left out and
	// every other setting applies. A config file that cannot be read at all
	// is left out whole. Flags are still refused: they are this command's
	// own. For the paths that run commands, so that one bad key — say in a
	// cloned repository's .hangdog.yaml — cannot stop every command.
	KeepGoing bool
	// Defaults replace built-in defaults (key → value as text): a front
	// end's own choice for its callers (the Claude Code hook's quicker
	// watchdog cadence), below every file, the environment and the flags,
	// so a key the user set anywhere keeps the user's value. Refused like
	// flags when bad.
	Defaults map[string]string
}

// Settings is a loaded, validated configuration.
type Settings struct {
	v        *viper.Viper
	origins  map[string]origin // by canonical key
	watchdog Watchdog
	// keepEnded is how long an ended task is kept; 0 keeps it forever.
	keepEnded time.Duration
	// warnings are what KeepGoing left out.
	warnings  []error
	keepGoing bool
	// agentProfile gives commands nobody is at the agent profile's environment.
	agentProfile bool
	// onSessionEnd is what a session's running tasks get when it ends.
	onSessionEnd string
	watchers     Watchers
	serveAddress string
	serveSink    string
	events       Events
}

// Events are the fleet's settings (events.*): where this home's events
// are published. Sink "" means none, and nothing of the fleet runs.
type Events struct {
	Sink        string `mapstructure:"sink"`
	Credentials string `mapstructure:"credentials"`
	Stream      string `mapstructure:"stream"`
	Replicas    int    `mapstructure:"replicas"`
	Host        string `mapstructure:"host"`
}

// Watchers are the watchers' limits (watchers.*); the watch package turns
// them into its Limits.
type Watchers struct {
	MaxActivePerOwner       int     `mapstructure:"maxActivePerOwner"`
	MaxFires                int     `mapstructure:"maxFires"`
	MaxWakesPerHour         int     `mapstructure:"maxWakesPerHour"`
	GraceChecks             int     `mapstructure:"graceChecks"`
	MaxErrors               int     `mapstructure:"maxErrors"`
	JudgeFailures           int     `mapstructure:"judgeFailures"`
	NetworkIntervalFloorSec float64 `mapstructure:"networkIntervalFloorSec"`
}

type origin struct{ source, detail string }

// Entry is one key's effective value and where it came from.
type Entry struct {
	Key          string   `json:"key"`
	Value        any      `json:"value"`                  // bool, float64, int or string
	Source       string   `json:"source"`                 // default | user | project | env | flag
	SourceDetail string   `json:"sourceDetail,omitempty"` // file path or environment variable
	Allowed      string   `json:"allowed"`
	Help         string   `json:"help"`
	Kind         string   `json:"kind"` // bool | number | int | choice | string
	Choices      []string `json:"choices,omitempty"`
}

// Text formats the value the way it is written in files and on command lines.
func (e Entry) Text() string { return formatValue(e.Value) }

// Load reads every layer — built-in defaults, user file, project file,
// environment, flags — each overriding the one before, and refuses the first
// bad key or value with an *Error naming its source.
func Load(opts Options) (*Settings, error) {
	s := &Settings{v: viper.New(), origins: make(map[string]origin, len(keySpecs)), keepGoing: opts.KeepGoing}
	for _, spec := range keySpecs {
		s.v.SetDefault(spec.Key, spec.Default)
		s.origins[spec.Key] = origin{source: SourceDefault}
	}
	if err := s.mergeDefaults(opts.Defaults); err != nil {
		return nil, err
	}

	userFile := opts.UserFile
	if userFile == "" {
		userFile = UserFile()
	}
	if userFile != "" {
		if err := s.mergeFile(userFile, SourceUser); err != nil {
			return nil, err
		}
	}

	dir := opts.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("find the working directory to look for %s: %w", ProjectFileName, err)
		}
		dir = wd
	}
	if projectFile, ok := FindProjectFile(dir); ok {
		if err := s.mergeFile(projectFile, SourceProject); err != nil {
			return nil, err
		}
	}

	if err := s.mergeEnv(opts.Env); err != nil {
		return nil, err
	}
	if err := s.mergeFlags(opts.Flags); err != nil {
		return nil, err
	}

	// Unmarshal, not UnmarshalKey: only AllSettings merges every layer of a
	// nested group, while Get("watchdog") returns the highest layer's map alone.
	var all struct {
		Watchdog Watchdog `mapstructure:"watchdog"`
		Tasks    struct {
			KeepDays     float64 `mapstructure:"keepDays"`
			AgentProfile bool    `mapstructure:"agentProfile"`
			OnSessionEnd string  `mapstructure:"onSessionEnd"`
		} `mapstructure:"tasks"`
		Watchers Watchers `mapstructure:"watchers"`
		Serve    struct {
			Address string `mapstructure:"address"`
			Sink    string `mapstructure:"sink"`
		} `mapstructure:"serve"`
		Events Events `mapstructure:"events"`
	}
	if err := s.v.Unmarshal(&all); err != nil {
		return nil, fmt.Errorf("decode the settings: %w", err)
	}
	s.watchdog = all.Watchdog
	s.keepEnded = time.Duration(all.Tasks.KeepDays * float64(24*time.Hour))
	s.agentProfile = all.Tasks.AgentProfile
	s.onSessionEnd = all.Tasks.OnSessionEnd
	s.watchers = all.Watchers
	s.serveAddress = all.Serve.Address
	s.serveSink = all.Serve.Sink
	s.events = all.Events
	return s, nil
}

func (s *Settings) mergeFile(path, source string) error {
	var skip func(*Error)
	if s.keepGoing {
		skip = func(e *Error) { s.warn(e) }
	}
	values, err := readConfigValues(path, skip)
	if err != nil {
		return s.refuse(err)
	}
	layer := map[string]any{}
	for _, fv := range values {
		if source == SourceProject && fv.spec.UserOnly {
			if err := s.refuse(userOnlyError(path, fv.spec)); err != nil {
				return err
			}
			continue
		}
		val, err := validateSpec(path, fv.spec, fv.text)
		if err != nil {
			if err := s.refuse(err); err != nil {
				return err
			}
			continue
		}
		setNested(layer, fv.spec.Key, val)
		s.origins[fv.spec.Key] = origin{source: source, detail: path}
	}
	return s.v.MergeConfigMap(layer)
}

func userOnlyError(path string, spec *KeySpec) *Error {
	return &Error{
		Source: path, Key: spec.Key, Reason: "cannot be set in a project file",
		Allowed: "the user file, an environment variable or a flag",
		Hint:    "a project file comes with the repository, and must not " + spec.userOnlyWhy,
	}
}

func (s *Settings) mergeEnv(lookup func(string) (string, bool)) error {
	if lookup == nil {
		lookup = os.LookupEnv
		if err := refuseUnknownEnv(os.Environ()); err != nil {
			if err := s.refuse(err); err != nil {
				return err
			}
		}
	}
	layer := map[string]any{}
	for _, spec := range keySpecs {
		name := envName(spec.Key)
		text, ok := lookup(name)
		// An empty variable counts as unset (as viper does), so `VAR= cmd`
		// can switch an override off.
		if !ok || text == "" {
			continue
		}
		val, err := validateSpec("environment variable "+name, &spec, text)
		if err != nil {
			if err := s.refuse(err); err != nil {
				return err
			}
			continue
		}
		setNested(layer, spec.Key, val)
		s.origins[spec.Key] = origin{source: SourceEnv, detail: name}
	}
	return s.v.MergeConfigMap(layer)
}

// refuseUnknownEnv catches a misspelt variable of a settings group
// (HANGDOG_WATCHDOG_*, HANGDOG_TASKS_*), which would otherwise be silently
// ignored.
func refuseUnknownEnv(environ []string) error {
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		prefix, ok := groupEnvPrefix(name)
		if !ok || name == ForceActEnv {
			continue
		}
		if !envNames().known[name] {
			hint := "hangdog config list shows every key; its variable is HANGDOG_ + the key in upper case, dots as _"
			if near := nearestKey(strings.ToLower(strings.TrimPrefix(name, prefix))); near != "" && strings.HasPrefix(envName(near), prefix) {
				hint = "did you mean " + envName(near) + " (" + near + ")?"
			}
			return &Error{Source: "environment variable " + printable(name), Reason: "names no setting", Hint: hint}
		}
	}
	return nil
}

// groupEnvPrefix returns the prefix of the settings group a variable's name
// falls under, such as "HANGDOG_TASKS_".
func groupEnvPrefix(name string) (string, bool) {
	if !strings.HasPrefix(name, "HANGDOG_") {
		return "", false
	}
	for _, prefix := range envNames().groups {
		if strings.HasPrefix(name, prefix) {
			return prefix, true
		}
	}
	return "", false
}

// envNames are the settings' variable names and their groups' prefixes,
// made once: every command's settings are loaded with the environment
// checked, and building them per variable was a third of a load.
var envNames = sync.OnceValue(func() (n struct {
	known  map[string]bool
	groups []string
}) {
	n.known = make(map[string]bool, len(keySpecs))
	for _, spec := range keySpecs {
		n.known[envName(spec.Key)] = true
		group, _, _ := strings.Cut(spec.Key, ".")
		if prefix := envName(group) + "_"; !slices.Contains(n.groups, prefix) {
			n.groups = append(n.groups, prefix)
		}
	}
	return n
})

// mergeDefaults puts a front end's defaults in place of the built-in ones.
func (s *Settings) mergeDefaults(defaults map[string]string) error {
	keys := make([]string, 0, len(defaults))
	for k := range defaults {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		spec, err := specFor(defaultsSource, k)
		if err != nil {
			return err
		}
		val, err := validateSpec(defaultsSource, spec, defaults[k])
		if err != nil {
			return err
		}
		s.v.SetDefault(spec.Key, val)
		s.origins[spec.Key] = origin{source: SourceDefault, detail: defaultsSource}
	}
	return nil
}

func (s *Settings) mergeFlags(flags map[string]string) error {
	keys := make([]string, 0, len(flags))
	for k := range flags {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first error reported must not depend on map order
	for _, k := range keys {
		spec, err := specFor(flagSource, k)
		if err != nil {
			return err
		}
		val, err := validateSpec(flagSource, spec, flags[k])
		if err != nil {
			return err
		}
		s.v.Set(spec.Key, val)
		s.origins[spec.Key] = origin{source: SourceFlag}
	}
	return nil
}

// setNested stores a value under a dotted key in a tree of maps.
func setNested(m map[string]any, key string, val any) {
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = val
}

// refuse returns err, or with KeepGoing records it as a warning and returns
// nil.
func (s *Settings) refuse(err error) error {
	if !s.keepGoing {
		return err
	}
	s.warn(err)
	return nil
}

func (s *Settings) warn(err error) { s.warnings = append(s.warnings, err) }

// Warnings are the entries KeepGoing left out, each naming its file or
// variable, key, value and what to do; nil when everything applied.
func (s *Settings) Warnings() []error { return s.warnings }

// Watchdog is the effective watchdog configuration.
func (s *Settings) Watchdog() Watchdog { return s.watchdog }

// KeepEnded is how long an ended task's output and result are kept
// (tasks.keepDays); 0 keeps them forever.
func (s *Settings) KeepEnded() time.Duration { return s.keepEnded }

// OnSessionEnd is what happens to a session's running tasks when the
// session ends (tasks.onSessionEnd): "kill" or "keep".
func (s *Settings) OnSessionEnd() string { return s.onSessionEnd }

// Watchers is the effective watchers.* group: the watchers' limits.
func (s *Settings) Watchers() Watchers { return s.watchers }

// ServeAddress is where `hangdog serve` listens (serve.address).
func (s *Settings) ServeAddress() string { return s.serveAddress }

// ServeSink is the fleet's NATS servers for links (serve.sink); "" for
// none: links are this machine's receiver's.
func (s *Settings) ServeSink() string { return s.serveSink }

// Events is where this home's events are published (events.*).
func (s *Settings) Events() Events { return s.events }

// AgentProfile says whether commands nobody is at get the agent profile's
// environment (tasks.agentProfile).
func (s *Settings) AgentProfile() bool { return s.agentProfile }

// Entries lists every key with its effective value, in Keys() order.
func (s *Settings) Entries() []Entry {
	out := make([]Entry, 0, len(keySpecs))
	for i := range keySpecs {
		out = append(out, s.entry(&keySpecs[i]))
	}
	return out
}

// Get returns one key's entry. The key may omit "watchdog." and is matched
// case-insensitively; an unknown key's error suggests the nearest known one.
func (s *Settings) Get(key string) (Entry, error) {
	spec, err := specFor("", key)
	if err != nil {
		return Entry{}, err
	}
	return s.entry(spec), nil
}

func (s *Settings) entry(spec *KeySpec) Entry {
	var val any
	switch spec.Kind {
	case KindBool:
		val = s.v.GetBool(spec.Key)
	case KindNumber:
		val = s.v.GetFloat64(spec.Key)
	case KindInt:
		val = s.v.GetInt(spec.Key)
	default:
		val = s.v.GetString(spec.Key)
	}
	o := s.origins[spec.Key]
	return Entry{
		Key: spec.Key, Value: val, Source: o.source, SourceDetail: o.detail,
		Allowed: spec.Allowed, Help: spec.Help, Kind: spec.Kind,
		Choices: append([]string(nil), spec.Choices...),
	}
}

func formatValue(v any) string {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int:
		return strconv.Itoa(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}
