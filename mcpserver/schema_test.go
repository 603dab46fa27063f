package mcpserver

import (
	"strings"
	"testing"

	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/watch"
)

// A default a schema states is the settings table's: the description names
// the setting in braces and the schema carries its value.
func TestSchemaStatesTheSettingsDefaults(t *testing.T) {
	s, err := inputSchema[watch.Request]()
	if err != nil {
		t.Fatal(err)
	}
	for field, key := range map[string]string{"max_fires": "watchers.maxFires", "max_wakes_per_hour": "watchers.maxWakesPerHour"} {
		d := s.Properties[field].Description
		if want := "(default " + settings.DefaultText(key) + ")"; !strings.Contains(d, want) || strings.Contains(d, "{") {
			t.Errorf("%s: %q, want it to end in %q", field, d, want)
		}
	}
}
