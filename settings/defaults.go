package settings

import "fmt"

// DefaultText is a key's built-in default as a user would write it ("20",
// "127.0.0.1:17465"), for help texts, tool descriptions and the generated
// reference: they name the key and read its default from the one table
// here, so no text repeats a number the table holds. It panics on a key
// that is not in the table: every caller names a key at build time, and a
// test that renders the text finds a misspelling at once.
func DefaultText(key string) string {
	spec, ok := lookupKey(key)
	if !ok || spec.Key != key {
		panic(fmt.Sprintf("settings.DefaultText: no key %q", key))
	}
	return formatValue(spec.Default)
}

// DefaultHelp names a key with its built-in default, the way help texts
// cite one: "the watchers.maxFires setting, 20 unless set". It stays true
// when the user sets the key, which a bare number would not.
func DefaultHelp(key string) string {
	return fmt.Sprintf("the %s setting, %s unless set", key, DefaultText(key))
}

// EnvVar is the environment variable that sets the key, e.g.
// HANGDOG_WATCHERS_MAXFIRES for watchers.maxFires.
func (s KeySpec) EnvVar() string { return envName(s.Key) }
