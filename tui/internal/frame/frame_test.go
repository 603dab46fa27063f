package frame

import "testing"

func TestClusterWidthIsTheWidestReading(t *testing.T) {
	for _, c := range []struct {
		s   string
		w   int
		amb bool
	}{
		{"x", 1, false},
		{"日", 2, false},
		{"e\u0301", 1, false},
		{"👍🏽", 4, true},    // tmux 3.3 draws the modifier on its own
		{"❤️", 2, true},    // grapheme-aware terminals draw VS16 wide
		{"🇺🇸", 4, true},    // per-character tables give each indicator 2
		{"👨‍👩‍👧", 6, true}, // xterm draws each person
	} {
		w, amb := clusterWidth(c.s)
		if w != c.w || amb != c.amb {
			t.Errorf("clusterWidth(%q) = %d, %v; want %d, %v", c.s, w, amb, c.w, c.amb)
		}
	}
}
