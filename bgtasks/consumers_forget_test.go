package bgtasks

import (
	"os"
	"testing"
)

func TestForgetConsumerRemovesOnlyItsCursor(t *testing.T) {
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"keep", "drop"} {
		if _, err := r.Undelivered(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.ForgetConsumer("drop"); err != nil {
		t.Fatal(err)
	}
	if err := r.ForgetConsumer("drop"); err != nil {
		t.Errorf("forgetting twice: %v", err)
	}
	if _, err := os.Stat(r.consumersDir() + "/drop.cursor"); !os.IsNotExist(err) {
		t.Errorf("drop's cursor still there: %v", err)
	}
	if _, err := os.Stat(r.consumersDir() + "/keep.cursor"); err != nil {
		t.Errorf("keep's cursor gone: %v", err)
	}
	if err := r.ForgetConsumer("../x"); err == nil {
		t.Error("a bad name was accepted")
	}
}
