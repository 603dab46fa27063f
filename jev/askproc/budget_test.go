package askproc

import (
	"testing"
	"time"

	"github.com/hangdog/hangdog/jev"
)

func TestBudget(t *testing.T) {
	tests := []struct {
		cfg  jev.RemoteConfig
		want time.Duration
	}{
		// Defaults: three calls of 20 s, two waits of at most 15 s.
		{jev.RemoteConfig{}, 3*jev.DefaultTimeout + 2*jev.MaxRetryAfter},
		{jev.RemoteConfig{Timeout: 5 * time.Second, Retries: -1}, 5 * time.Second},
		{jev.RemoteConfig{Timeout: 5 * time.Second, Retries: 1}, 10*time.Second + jev.MaxRetryAfter},
		// Absurd values stay finite and positive.
		{jev.RemoteConfig{Timeout: 1 << 62, Retries: 1 << 40}, 11*mostTimeout + 10*jev.MaxRetryAfter},
	}
	for _, tt := range tests {
		if got := budget(tt.cfg); got != tt.want {
			t.Errorf("budget(%+v) = %v, want %v", tt.cfg, got, tt.want)
		}
	}
}
