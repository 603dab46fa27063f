package ctxtime

import (
	"context"
	"testing"
	"time"
)

func TestSleepEndsWithItsContext(t *testing.T) {
	if !Sleep(context.Background(), time.Millisecond) {
		t.Error("a sleep nothing cut short reported false")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if Sleep(ctx, time.Hour) {
		t.Error("a sleep whose context had ended reported true")
	}
	if time.Since(start) > time.Minute {
		t.Error("a sleep whose context had ended waited its whole time")
	}
}
