package testbin

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Result is how a run of a binary ended.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs bin with args to completion in dir with env, bounded by a
// generous minute; a binary that cannot start or runs past it fails t.
func Run(t testing.TB, bin string, env []string, dir string, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, bin, args...)
	c.Env, c.Dir = env, dir
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %s: %v", bin, strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%s %s: timed out\nstdout: %s\nstderr: %s", bin, strings.Join(args, " "), out.String(), errb.String())
	}
	return Result{out.String(), errb.String(), code}
}
