package bgtasks

import (
	"fmt"
	"os"
	"testing"
)

func TestCheckRecordsKeepTheLastChecks(t *testing.T) {
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(r.TaskDir("t1"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got, err := r.ReadChecks("t1"); err != nil || got != nil {
		t.Fatalf("before any check: %q, %v; want none", got, err)
	}
	c := r.NewCheckRecords("t1")
	for i := 1; i <= MaxCheckRecords+5; i++ {
		if err := c.Add(fmt.Sprintf("check=%d\nsecond line", i)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := r.ReadChecks("t1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != MaxCheckRecords {
		t.Fatalf("%d records, want the last %d: %q", len(got), MaxCheckRecords, got)
	}
	if got[0] != "check=6 second line" || got[len(got)-1] != fmt.Sprintf("check=%d second line", MaxCheckRecords+5) {
		t.Fatalf("records %q … %q: want checks 6 to %d, one line each", got[0], got[len(got)-1], MaxCheckRecords+5)
	}
	if c.Last() != got[len(got)-1] {
		t.Fatalf("Last %q, want %q", c.Last(), got[len(got)-1])
	}
	fi, err := os.Stat(r.ChecksPath("t1"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("checks file mode %v, want 0600", fi.Mode().Perm())
	}
}
