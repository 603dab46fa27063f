package bgtasks

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
)

// Tests that need many processes re-run this test binary with
// BGTASKS_TEST_HELPER set; TestHelperProcess then does one job and exits.
const (
	helperEnv     = "BGTASKS_TEST_HELPER"
	helperHomeEnv = "BGTASKS_TEST_HOME"
	helperArgEnv  = "BGTASKS_TEST_ARG"
	helperRounds  = 5
)

func TestHelperProcess(t *testing.T) {
	job := os.Getenv(helperEnv)
	if job == "" {
		t.Skip("only runs as a helper process")
	}
	r, err := Open(os.Getenv(helperHomeEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	arg := os.Getenv(helperArgEnv)
	switch job {
	case "create-and-append":
		for i := range helperRounds {
			task, err := r.Create(Meta{Command: fmt.Sprintf("echo %d-%d", os.Getpid(), i), Mode: Background})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(3)
			}
			fmt.Println(task.ID)
			if _, err := r.AppendEvent(Event{Kind: EventExited, TaskID: task.ID, Command: task.Command}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(4)
			}
		}
	case "get":
		task, err := r.Get(arg)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(5)
		}
		fmt.Println(task.State())
	default:
		fmt.Fprintln(os.Stderr, "unknown helper job", job)
		os.Exit(6)
	}
	os.Exit(0)
}

// runHelpers starts n helper processes at once and returns their outputs.
func runHelpers(t *testing.T, n int, home, job, arg string) []string {
	t.Helper()
	outs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
			cmd.Env = append(os.Environ(), helperEnv+"="+job, helperHomeEnv+"="+home, helperArgEnv+"="+arg)
			out, err := cmd.Output()
			outs[i] = string(out)
			if err != nil {
				if ee, ok := err.(*exec.ExitError); ok {
					err = fmt.Errorf("%w: %s", err, ee.Stderr)
				}
				errs[i] = fmt.Errorf("helper %s: %w", strconv.Itoa(i), err)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return outs
}
