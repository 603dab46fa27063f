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

	"github.com/hangdog/hangdog/fleet"
	"github.com/hangdog/hangdog/fleet/autostart"
	"github.com/hangdog/hangdog/settings"
)

func init() { registerCommand(newFleetCmd) }

func newFleetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fleet",
		Short: fleetShort,
		Long: `With events.sink set to NATS server URLs, every event of this home (a task's
end, a watcher's fire) is also published to a JetStream stream (events.stream,
default HANGDOG_EVENTS) on the subject
hangdog.events.HOST.PROJECT.SESSION.KIND, so a control plane anywhere can wake
the right agent (` + "`hangdog wake --from`" + `). See docs/fleet.md.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newFleetForwardCmd())
	return cmd
}

func newFleetForwardCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "forward",
		Short: "Publish this home's events to events.sink (started on demand)",
		Long: `Run the home's forwarder in this process: it publishes every event of the
home's log to the stream, in order, from its own cursor
(<home>/consumers/` + autostart.Consumer + `.cursor), which moves only once the stream
acknowledged. A NATS outage is waited out; a restart or a kill -9 republishes
a few events, which the stream drops by their message ids.

You rarely start it: with events.sink set, starting a task starts it
(detached, its log in <home>/fleet/forward.log) when none runs. One runs per
home; a second leaves at once. It stops by itself when events.sink no longer
names its servers.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			load := func() (settings.Events, error) {
				st, err := settings.Load(settings.Options{Dir: reg.Home(), KeepGoing: true})
				if err != nil {
					return settings.Events{}, err
				}
				return st.Events(), nil
			}
			ev, err := load()
			if err != nil {
				return err
			}
			if ev.Sink == "" {
				return errors.New("events.sink is not set: nothing to forward to; set it with `hangdog config set events.sink nats://HOST:4222`")
			}
			f := &fleet.Forwarder{Reg: reg, Config: fleet.FromSettings(ev), Log: cmd.ErrOrStderr(),
				Wanted: func() bool {
					now, err := load()
					return err != nil || now == ev // a settings file being edited is no reason to stop
				}}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			err = f.Run(ctx)
			if errors.Is(err, autostart.ErrHeld) {
				fmt.Fprintln(cmd.ErrOrStderr(), "hangdog fleet forward:", err)
				return nil
			}
			return err
		},
	}
}
