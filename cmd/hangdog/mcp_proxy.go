//go:build !lite

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/jev/askproc"
	"github.com/hangdog/hangdog/mcpproxy"
	"github.com/hangdog/hangdog/settings"
)

func init() { registerCommand(newMCPProxyCmd) }

func newMCPProxyCmd() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "mcp-proxy [--name NAME] -- COMMAND [ARGS...]",
		Short: mcpProxyShort,
		Long: `Run an MCP server (a stdio one: COMMAND ARGS) behind hangdog's watchdog. Put it
in front of the server in the client's configuration; the client talks to it
as to the server. Every message is relayed both ways unchanged; each
tools/call in flight is watched: its progress notifications, the server's
stderr and the server's processes (a socket waiting on a silent peer, a
deadlock, a retry loop: what the bash watchdog sees), on the watchdog's
schedule (watchdog.firstCheckMin, intervalMin, agreeChecks), whose defaults
for a tool call are quicker, so that a stuck call is acted on before its
client gives up:
  ` + proxyCadence() + `
(a value set in a settings file or the environment wins).

What a call judged stuck gets is watchdog.otherTools:
  off         relayed untouched, nothing sampled (the default)
  warn        the client is told (a progress notification for the call, else
              a log message), and the call's result carries the warning
  abort-turn  the server is sent notifications/cancelled for the call, and
              the client answered at once with an error result saying what
              was seen and for how long, so the agent's turn goes on; the
              server's late answer is dropped
A call that sends progress, or whose server works, is never touched.

The server is listed as a background task while it runs (hangdog bg ls, the
shell's status bar; hangdog bg kill ends it, and the proxy with it), its
stderr is that task's output, and a stuck call is one warning in the event
log (hangdog events).`,
		Example: `  claude mcp add fetch -- hangdog mcp-proxy --name fetch -- uvx mcp-server-fetch
  HANGDOG_WATCHDOG_OTHERTOOLS=abort-turn hangdog mcp-proxy -- npx -y @modelcontextprotocol/server-everything
  # .mcp.json: "command": "hangdog", "args": ["mcp-proxy", "--name", "fetch", "--", "uvx", "mcp-server-fetch"]`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("mcp-proxy needs the server's command, e.g. `hangdog mcp-proxy -- uvx mcp-server-fetch`")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			wd, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("find the current directory: %w", err)
			}
			// A bad entry is left out with a warning, as for a run: one bad
			// key must not take an agent's tools away.
			st, err := settings.Load(settings.Options{Dir: wd, KeepGoing: true, Defaults: mcpproxy.Defaults})
			if err != nil {
				return err
			}
			for _, e := range st.Warnings() {
				fmt.Fprintf(os.Stderr, "hangdog mcp-proxy: warning: %v\n  that setting is left out; fix or remove it (`hangdog config list` shows what applies)\n", e)
			}
			cfg := mcpproxy.Config{
				Name: name, Argv: args, Watchdog: st.Watchdog(), Remote: proxyRemote(st),
				Project: bgtasks.ProjectOf(wd),
				In:      os.Stdin, Out: os.Stdout, Stderr: os.Stderr,
			}
			if cfg.Owner, err = callerSession(""); err != nil {
				return err
			}
			// Without a registry the calls are still watched; only the task
			// record and the events are missing.
			if cfg.Registry, err = openRegistry(); err != nil {
				fmt.Fprintf(os.Stderr, "hangdog mcp-proxy: %v; the server is not listed and stuck calls make no events\n", err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			return mcpproxy.Run(ctx, cfg)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the server's name in warnings, events and the task list (default: the command's base name)")
	// Everything from COMMAND on is the server's, flags included.
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// proxyCadence says mcpproxy.Defaults in words, for the help.
func proxyCadence() string {
	return fmt.Sprintf("a first check at %s minutes, then one every %s minutes",
		mcpproxy.Defaults["watchdog.firstCheckMin"], mcpproxy.Defaults["watchdog.intervalMin"])
}

// proxyRemote is the decision model the settings name, asked through this
// binary (`hangdog __ask`), or nil to judge locally; why one cannot be used
// is said once on stderr, which clients keep as the server's log.
func proxyRemote(st *settings.Settings) jev.Backend {
	dm := st.Watchdog().DecisionModel
	rc, ok, err := jev.ResolveRemote(dm.Source, jev.RemoteConfig{
		Backend: dm.Backend, URL: dm.URL, Model: dm.Model, APIKeyEnv: dm.APIKeyEnv, Timeout: dm.Timeout(),
	}, os.Getenv)
	if err == nil && !ok {
		return nil
	}
	var self string
	if err == nil {
		self, err = os.Executable()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "hangdog mcp-proxy: decision model: %v; judging locally\n", err)
		return nil
	}
	return askproc.New(self, rc)
}
