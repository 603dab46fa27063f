//go:build !lite

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/settings"
)

func init() { registerCommand(newServeCmd) }

func newServeCmd() *cobra.Command {
	var stay bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the one local receiver of trigger and approval links (started on demand)",
		Long: `Run hangdog's receiver: one local HTTP server for every link of this home —
trigger links (POST /hook/<token>, ` + "`hangdog watch create --kind webhook`" + `) and
approval pages (/approve/<token>). It listens at serve.address (default
` + settings.DefaultServeAddress + `, this machine only), writes where it listens to
<home>/serve/address.json, and leaves by itself when no link is active.

You rarely start it: creating a link starts it (detached, its log in
<home>/serve/serve.log) when nothing answers. Under your own service manager,
run ` + "`hangdog serve --stay`" + ` so it stays without links. Everything it accepts is
on disk before it answers, so a restart loses nothing.

With serve.sink set (NATS servers) it is the fleet receiver instead: it serves
the links every sandbox with the same setting registered there, publishes each
accepted delivery or decision to the sandbox that made the link (answering 202
once the servers acknowledged it), and runs until stopped (docs/fleet.md).`,
		Example: `  hangdog serve --stay
  HANGDOG_SERVE_ADDRESS=0.0.0.0:` + defaultServePort() + ` hangdog serve --stay   # every interface: other machines can call
  # systemd --user: ExecStart=/usr/local/bin/hangdog serve --stay
  HANGDOG_SERVE_SINK=nats://n1:4222,nats://n2:4222 hangdog serve   # the fleet receiver`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := openWatchers()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			err = svc.Serve(ctx, stay, os.Stderr)
			if err != nil {
				return fmt.Errorf("hangdog serve: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&stay, "stay", false, "keep running when no link is active (under a service manager)")
	return cmd
}

// defaultServePort is serve.address's default port, for examples that keep
// the port and change the interface.
func defaultServePort() string {
	_, port, err := net.SplitHostPort(settings.DefaultServeAddress)
	if err != nil {
		return "PORT"
	}
	return port
}
