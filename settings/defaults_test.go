package settings

import (
	"strings"
	"testing"
)

func TestDefaultTextReadsTheTable(t *testing.T) {
	for _, k := range Keys() {
		if got, want := DefaultText(k.Key), formatValue(k.Default); got != want {
			t.Errorf("DefaultText(%s) = %q, want %q", k.Key, got, want)
		}
	}
	if got := DefaultHelp("watchers.maxFires"); got != "the watchers.maxFires setting, 20 unless set" {
		t.Errorf("DefaultHelp = %q", got)
	}
	if got := (KeySpec{Key: "watchers.maxFires"}).EnvVar(); got != "HANGDOG_WATCHERS_MAXFIRES" {
		t.Errorf("EnvVar = %q", got)
	}
}

func TestDefaultTextRefusesAKeyNotInTheTable(t *testing.T) {
	for _, key := range []string{"watchers.maxFire", "maxFires", "intervalMin"} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), key) {
					t.Errorf("DefaultText(%q) did not panic naming the key: %v", key, r)
				}
			}()
			DefaultText(key)
		}()
	}
}
