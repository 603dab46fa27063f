//go:build !lite

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/supervisor/proto"
	"github.com/hangdog/hangdog/watch"
	"github.com/hangdog/hangdog/watchctl"
)

// printLinkCreated reports a created trigger link: its URL, limits and an
// example curl, never its signing secret.
func printLinkCreated(cmd *cobra.Command, c *watchctl.Created, asJSON bool) error {
	link := c.Link
	if asJSON {
		out := map[string]any{"id": c.Spec.ID, "task_id": c.TaskID, "spec": c.Spec, "state": c.State}
		b, _ := json.Marshal(link)
		var fields map[string]any
		_ = json.Unmarshal(b, &fields)
		for k, v := range fields {
			out[k] = v
		}
		return printCreatedJSON(cmd, out, c.TaskErr)
	}
	if c.TaskErr != nil {
		return taskDidNotStart(c)
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "%s: %s (task %s)\n", c.Spec.ID, plain(c.Spec.Label()), c.TaskID)
	fmt.Fprintf(out, "url:        %s\n", link.URL)
	fmt.Fprintf(out, "expires:    %s\n", link.ExpiresAt.Local().Format(time.RFC3339))
	fmt.Fprintf(out, "limits:     %d deliveries (max_hits), %s", link.MaxHits, link.Rate)
	if link.UnverifiedRate != "" {
		fmt.Fprintf(out, ", %s with a wrong signature", link.UnverifiedRate)
	}
	fmt.Fprintf(out, ", %s a delivery\n", link.PayloadLimit)
	fmt.Fprintf(out, "signature:  %s; secret %s\n", link.Signature, link.Secret)
	reach := "no"
	if link.ReachableFromOutside {
		reach = "yes"
	}
	fmt.Fprintf(out, "reachable from outside: %s (%s)\n", reach, link.Reachability)
	if link.SecretEnv != "" {
		fmt.Fprintf(out, "example (export %s first):\n  %s\n", link.SecretEnv, link.ExampleCurl)
	} else {
		fmt.Fprintf(out, "example:\n  %s\n", link.ExampleCurl)
	}
	return nil
}

// newWatchSecretCmd shows a link's URL and signing secret to the person.
// It is the one place either is printed after create, and no MCP tool
// has its like.
func newWatchSecretCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "secret ID",
		Short: "Show a link's URL (its token) and signing secret — to you, not to a model",
		Long: `Show a trigger link's URL, with its token, and its signing secret, so you can
configure the sender. Nothing else shows the secret: listings, logs, events and
MCP results say it is hidden. Run inside a hangdog task (an agent's bash tool,
where a model reads the output) it refuses.`,
		Example: "  hangdog watch secret w3\n  hangdog watch secret w3 --json | jq -r .secret",
		Args:    watchIDArg("hangdog watch secret w3"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if os.Getenv(proto.TaskIDEnv) != "" {
				return fmt.Errorf("watch secret refuses to run inside a hangdog task (%s is set): an agent would read the secret; run it in your own terminal", proto.TaskIDEnv)
			}
			svc, err := openWatchers()
			if err != nil {
				return err
			}
			caller := cliCaller()
			w, err := svc.Get(caller, args[0])
			if err != nil {
				return notFoundHint(err)
			}
			if w.Spec.Kind != watch.KindWebhook {
				return fmt.Errorf("watcher %s is a %s watcher: only trigger links (kind webhook) have a URL and a secret", args[0], w.Spec.Kind)
			}
			link, err := svc.Link(cmd.Context(), caller, args[0])
			if err != nil {
				return err
			}
			secret, err := svc.Secret(caller, args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{"id": w.Spec.ID, "url": link.URL, "signature": link.Signature, "secret": secret})
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "url:       %s\n", link.URL)
			fmt.Fprintf(out, "signature: %s\n", link.Signature)
			if secret == "" {
				fmt.Fprintln(out, "secret:    none (unsigned: the URL is the secret)")
			} else {
				fmt.Fprintf(out, "secret:    %s\n", secret)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"id", "url", "signature", "secret"} as JSON`)
	return cmd
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
