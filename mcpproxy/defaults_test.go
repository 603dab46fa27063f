package mcpproxy

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hangdog/hangdog/settings"
)

// The proxy's cadence acts on a stuck call before the clients give up on
// it (60 s: the TypeScript SDK's and Codex's request timeout), where the
// command defaults would act at about 5 minutes; and a value the user set
// (here in the environment) wins over it.
func TestDefaultsActBeforeTheClientsGiveUp(t *testing.T) {
	const clientTimeout = 60 * time.Second
	dir := t.TempDir()
	load := func(env map[string]string, defaults map[string]string) settings.Watchdog {
		t.Helper()
		st, err := settings.Load(settings.Options{Dir: dir, UserFile: filepath.Join(dir, "none.yaml"), Defaults: defaults,
			Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
		if err != nil {
			t.Fatal(err)
		}
		return st.Watchdog()
	}
	acts := func(w settings.Watchdog) time.Duration {
		return w.FirstCheck() + time.Duration(w.AgreeChecks-1)*w.Interval()
	}
	if got := acts(load(nil, nil)); got < clientTimeout {
		t.Fatalf("the command defaults act at %v; this test assumes they are slower than a client's %v", got, clientTimeout)
	}
	if got := acts(load(nil, Defaults)); got >= clientTimeout {
		t.Errorf("with the proxy's defaults a stuck call is acted on at %v, after a client gives up at %v", got, clientTimeout)
	}
	if got := load(map[string]string{"HANGDOG_WATCHDOG_FIRSTCHECKMIN": "1"}, Defaults).FirstCheck(); got != time.Minute {
		t.Errorf("a first check the user set to 1 minute is %v with the proxy's defaults", got)
	}
}
