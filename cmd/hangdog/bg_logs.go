package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/termtext"
)

func init() { registerBgCommand(newBgLogsCmd) }

// logsPollInterval is how often `bg logs -f` looks for new output and checks
// whether the task has ended.
const logsPollInterval = 200 * time.Millisecond

// logsOptions are the `bg logs` flags.
type logsOptions struct {
	follow bool
	raw    bool
	tail   int // last N lines; < 0: everything
}

func newBgLogsCmd() *cobra.Command {
	opts := logsOptions{tail: -1}
	cmd := &cobra.Command{
		Use:   "logs ID",
		Short: "Print a task's output, as plain text or raw bytes",
		Long: `Print everything a task has written to its terminal. By default the output is
plain text: colours and other escape sequences are removed and progress bars
redrawn with carriage returns show their final state, as a terminal would show
them. --raw prints the bytes exactly as the command wrote them.

--tail N prints only the last N lines. -f keeps printing new output as it
arrives until the task ends, then prints the rest and exits 0; a line the
command leaves unfinished (a prompt) is shown once output pauses.`,
		Example: `  hangdog bg logs t3
  hangdog bg logs t3 --tail 50
  hangdog bg logs t3 -f
  hangdog bg logs t3 --raw > t3.log`,
		Args: taskArgs(0, "hangdog bg logs t3 -f"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkTail(cmd, opts.tail); err != nil {
				return err
			}
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			t, err := reg.Get(args[0])
			if err != nil {
				return err
			}
			return printTaskOutput(cmd.Context(), reg, t, cmd.OutOrStdout(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.follow, "follow", "f", false, "keep printing new output until the task ends")
	cmd.Flags().IntVarP(&opts.tail, "tail", "n", -1, "print only the last N lines (default: all)")
	cmd.Flags().BoolVar(&opts.raw, "raw", false, "print the raw bytes, escape sequences included")
	return cmd
}

// printTaskOutput copies the task's output log to out, through a plain-text
// converter unless opts.raw. Memory stays bounded whatever the log's size.
func printTaskOutput(ctx context.Context, reg *bgtasks.Registry, t *bgtasks.Task, out io.Writer, opts logsOptions) error {
	sink := out
	var plain *termtext.Writer
	if !opts.raw {
		plain = termtext.NewWriter(out)
		sink = plain
	}
	finish := func(err error) error {
		if plain != nil {
			if cerr := plain.Close(); err == nil {
				err = cerr
			}
		}
		return err
	}
	f, err := openTaskOutput(t, opts.tail)
	if err != nil {
		return err
	}
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	buf := make([]byte, 64<<10)
	if !opts.follow {
		if f == nil {
			return nil
		}
		_, err := copyAvailable(sink, f, buf)
		return finish(err)
	}
	pausedOnce := false
	for {
		if f == nil {
			if f, err = openTaskOutput(t, opts.tail); err != nil {
				return finish(err)
			}
		}
		if f != nil {
			n, err := copyAvailable(sink, f, buf)
			if err != nil {
				return finish(err)
			}
			if n > 0 {
				pausedOnce = false
				continue
			}
		}
		cur, err := reg.Get(t.ID)
		if err != nil {
			return finish(fmt.Errorf("stopped following: %w", err))
		}
		if cur.State().Ended() {
			// The supervisor writes all output before its result, so what
			// is there now is the rest.
			if f == nil {
				if f, err = openTaskOutput(t, opts.tail); err != nil || f == nil {
					return finish(err)
				}
			}
			_, err := copyAvailable(sink, f, buf)
			return finish(err)
		}
		// Show an unfinished line (a prompt) only once output has paused
		// for a whole poll, so a fast progress bar is not split up.
		if plain != nil && pausedOnce {
			if err := plain.Flush(); err != nil {
				return finish(err)
			}
		}
		pausedOnce = true
		select {
		case <-ctx.Done():
			return finish(nil)
		case <-time.After(logsPollInterval):
		}
	}
}

// openTaskOutput opens the output log positioned at the start of its last
// tail lines (tail < 0: at the start). A task that has not written anything
// yet may have no log: that gives a nil file and no error.
func openTaskOutput(t *bgtasks.Task, tail int) (*os.File, error) {
	f, err := os.Open(t.OutputPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read output of task %s: %w", t.ID, err)
	}
	if tail >= 0 {
		off, err := lastLinesOffset(f, tail)
		if err == nil {
			_, err = f.Seek(off, io.SeekStart)
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("read output of task %s: %w", t.ID, err)
		}
	}
	return f, nil
}

// copyAvailable copies from f to w until f's current end.
func copyAvailable(w io.Writer, f *os.File, buf []byte) (int64, error) {
	var total int64
	for {
		n, err := f.Read(buf)
		if n > 0 {
			total += int64(n)
			if _, werr := w.Write(buf[:n]); werr != nil {
				return total, fmt.Errorf("write output: %w", werr)
			}
		}
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, fmt.Errorf("read %s: %w", f.Name(), err)
		}
	}
}

// lastLinesOffset returns where the last n lines of f begin, reading
// backwards from the end in blocks. A final newline ends the last line; it
// does not start another.
func lastLinesOffset(f *os.File, n int) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	if n == 0 {
		return size, nil
	}
	buf := make([]byte, 64<<10)
	seen := 0
	for end := size; end > 0; {
		start := max(end-int64(len(buf)), 0)
		block := buf[:end-start]
		if _, err := f.ReadAt(block, start); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		for i := len(block) - 1; i >= 0; i-- {
			if block[i] != '\n' || start+int64(i) == size-1 {
				continue
			}
			if seen++; seen == n {
				return start + int64(i) + 1, nil
			}
		}
		end = start
	}
	return 0, nil
}
