//go:build !lite

package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/watch"
	"github.com/hangdog/hangdog/watchctl"
)

// `hangdog approve create`: an approval link, full build only (it links
// the watch package, as the watch commands do; the lite hangdog hands it
// over, watch_lite.go).

func init() { registerCommand(newApproveCmd) }

func newApproveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "approve",
		Short: "Approval links: a person decides on a small page, and the session is told once",
		Long: `An approval link is a page with a question, its details and buttons (Approve
and Reject, or the options given) that a person opens in a browser. Opening it
changes nothing; the first button pressed is the decision, and any later press
is shown that decision. The decision wakes this session once, as an event
{decision, comment} marked as a person's, through the link (the comment is
untrusted text). hangdog's own processes are refused: an agent cannot decide
its own link. Each approval is a watcher (` + "`hangdog watch ls`" + ` lists it,
` + "`watch rm`" + ` withdraws the link).`,
	}
	cmd.AddCommand(newApproveCreateCmd())
	return cmd
}

func newApproveCreateCmd() *cobra.Command {
	var q watch.ApprovalRequest
	var detailsFile string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "create --question Q [--details FILE] [--options A,B] [--expires T]",
		Short: "Create an approval link; prints the URL to give the person",
		Long: `Create an approval link and start its watcher's background task. Prints the
link, when it expires and whether it can be opened from another machine
(false for loopback, private addresses and bare host names: then the person
opens it on this machine). The page is served by the receiver, ` + "`hangdog serve`" + `,
started here if it is not running; with $` + watchctl.ReceiverURLEnv + ` set (a proxy or
tunnel in front of it), links carry that base URL instead.

--details FILE is plain text shown under the question (- reads stdin; at most
16 KiB). --options are 1 to 6 button labels (default Approve,Reject).
--expires is an ISO-8601 time with a zone or a duration (default 24h, at most
30 days). The owner is $HANGDOG_SESSION; it counts toward the owner's active
watchers (at most watchers.maxActivePerOwner, ` + settings.DefaultText("watchers.maxActivePerOwner") + ` unless set).`,
		Example: `  hangdog approve create --question 'Deploy build 142 to production?' --details notes.txt
  hangdog approve create --question 'Which plan?' --options 'Plan A,Plan B,Neither' --expires 2h --json | jq -r .url`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if detailsFile != "" {
				b, err := readDetails(cmd, detailsFile)
				if err != nil {
					return err
				}
				q.Details = string(b)
			}
			svc, err := openWatchers()
			if err != nil {
				return err
			}
			c, err := svc.CreateApproval(cmd.Context(), cliCaller(), &q)
			if err != nil {
				return err
			}
			id, link := c.Spec.ID, c.Link
			if asJSON {
				return printCreatedJSON(cmd, map[string]any{"id": id, "url": link.URL, "expires_at": link.ExpiresAt.UTC().Format(time.RFC3339),
					"reachable_from_outside": link.ReachableFromOutside, "task_id": c.TaskID,
					"question": link.Question, "options": link.Options}, c.TaskErr)
			}
			if c.TaskErr != nil {
				return fmt.Errorf("approval %s created (%s) but its task did not start: %w; `hangdog watch resume %s` tries again", id, link.URL, c.TaskErr, id)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s: %s\n", id, link.URL)
			fmt.Fprintf(w, "expires %s (%s); task %s\n", link.ExpiresAt.Local().Format(time.RFC3339), watch.ExpiresIn(link.ExpiresAt, time.Now()), c.TaskID)
			fmt.Fprintf(w, "reachable from outside: %v: %s\n", link.ReachableFromOutside, link.ReachHint())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&q.Question, "question", "", "the question for the person (required)")
	f.StringVar(&detailsFile, "details", "", "a file of plain text shown under the question (- for stdin)")
	f.StringSliceVar(&q.Options, "options", nil, "the buttons, comma-separated (default Approve,Reject)")
	f.StringVar(&q.ExpiresAt, "expires", "", "ISO-8601 time with a zone, or a duration such as 2h (default 24h)")
	f.BoolVar(&asJSON, "json", false, `print {"id", "url", "expires_at", "reachable_from_outside", "task_id", "question", "options"}`)
	return cmd
}

func readDetails(cmd *cobra.Command, path string) ([]byte, error) {
	var r io.Reader = cmd.InOrStdin()
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("--details %s: %w; give a readable text file (or - for stdin)", path, err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, 16<<10+1))
	if err != nil {
		return nil, fmt.Errorf("--details %s: %w", path, err)
	}
	return b, nil
}
