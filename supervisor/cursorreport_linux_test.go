//go:build linux

package supervisor

import "testing"

func TestQueryScannerCountsQueriesAcrossReads(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []string
		want   int
	}{
		{"none", []string{"plain text\r\n"}, 0},
		{"one", []string{"a\x1b[6nb"}, 1},
		{"two in one read", []string{"\x1b[6n\x1b[6n"}, 2},
		{"split after ESC", []string{"x\x1b", "[6n"}, 1},
		{"split after [", []string{"\x1b[", "6ny"}, 1},
		{"split before n", []string{"\x1b[6", "n"}, 1},
		{"split over three reads", []string{"\x1b", "[6", "n"}, 1},
		{"another sequence", []string{"\x1b[6", "m\x1b[16n"}, 0},
		{"a prefix that does not finish", []string{"\x1b[", "\x1b[6n"}, 1},
		{"empty read between", []string{"\x1b[", "", "6n"}, 1},
	} {
		var q queryScanner
		got := 0
		for _, c := range tc.chunks {
			got += q.scan([]byte(c))
		}
		if got != tc.want {
			t.Errorf("%s: %d queries, want %d", tc.name, got, tc.want)
		}
	}
}
