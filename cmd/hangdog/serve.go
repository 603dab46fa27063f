//go:build !lite

package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/approval"
	"github.com/hangdog/hangdog/receiver"
	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/watch"
)

func init() {
	registerCommand(newServeCmd)
	linkHandlers["/approve/"] = func(s *watch.Store) http.Handler { return approval.Handler(s) }
	approval.BaseURL = approvalBaseURL
}

// approvalBaseURL is where approval links point (linkBase).
func approvalBaseURL(ctx context.Context) (string, error) {
	store, err := openWatchStore()
	if err != nil {
		return "", err
	}
	return linkBase(ctx, store)
}

// publicBase is $HANGDOG_RECEIVER_URL, checked, or "" when it is unset.
// A command that makes a link calls it before it creates anything, so a
// malformed value is refused first.
func publicBase() (string, error) {
	if os.Getenv(approval.BaseURLEnv) == "" {
		return "", nil
	}
	return approval.BaseURLFromEnv()
}

// linkBase is the base URL of every link, trigger and approval alike. The
// receiver is started if it is not running: whatever is in front of it,
// it is what stores a delivery or a decision in this home. Links carry
// $HANGDOG_RECEIVER_URL when it is set — a proxy or a tunnel in front of
// the receiver, the address a sender or a person elsewhere can reach — and
// the receiver's own address otherwise.
func linkBase(ctx context.Context, store *watch.Store) (string, error) {
	public, err := publicBase()
	if err != nil {
		return "", err
	}
	local, err := receiver.Ensure(ctx, store)
	if err != nil {
		return "", err
	}
	if public != "" {
		return public, nil
	}
	return local, nil
}

// linkHandlers are the receiver's other link pages, by path prefix: the
// approval pages at "/approve/" (approval.Handler). The trigger links'
// /hook/ is the receiver's own.
var linkHandlers = map[string]func(*watch.Store) http.Handler{}

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
on disk before it answers, so a restart loses nothing.`,
		Example: `  hangdog serve --stay
  HANGDOG_SERVE_ADDRESS=0.0.0.0:` + defaultServePort() + ` hangdog serve --stay   # every interface: other machines can call
  # systemd --user: ExecStart=/usr/local/bin/hangdog serve --stay`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := openWatchStore()
			if err != nil {
				return err
			}
			wd, _ := os.Getwd()
			conf, err := settings.Load(settings.Options{Dir: wd, KeepGoing: true})
			if err != nil {
				return err
			}
			mounts := map[string]http.Handler{}
			for prefix, h := range linkHandlers {
				mounts[prefix] = h(store)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			err = receiver.Serve(ctx, store, receiver.ServeOptions{
				Address: conf.ServeAddress(), Stay: stay, Mounts: mounts, Log: os.Stderr,
			})
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
