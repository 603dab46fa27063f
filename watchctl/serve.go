package watchctl

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/hangdog/hangdog/approval"
	"github.com/hangdog/hangdog/receiver"
	"github.com/hangdog/hangdog/receiver/sink"
)

// Serve runs the home's receiver (`hangdog serve`): trigger links at
// /hook/ and the approval pages at /approve/, at serve.address, until ctx
// ends or, without stay, no link is active. With serve.sink set it is the
// fleet receiver instead: it serves the links every sandbox registered at
// the fleet, hands what it accepts to them through NATS JetStream, and
// runs until stopped.
func (s *Service) Serve(ctx context.Context, stay bool, log io.Writer) error {
	conf, err := s.settings()
	if err != nil {
		return err
	}
	opts := receiver.ServeOptions{
		Address: conf.ServeAddress(), Stay: stay, Log: log,
		Mounts: map[string]http.Handler{"/approve/": approval.Handler(s.store)},
	}
	if conf.ServeSink() == "" {
		return receiver.Serve(ctx, s.store, opts)
	}
	f, err := sink.Dial(ctx, conf, "hangdog fleet receiver")
	if err != nil {
		return err
	}
	defer f.Close()
	if log != nil {
		fmt.Fprintf(log, "the fleet receiver: links of every sandbox at %s (serve.sink)\n", sink.Redacted(conf))
	}
	opts.Links = f.Links()
	ap := f.Approvals()
	opts.Mounts["/approve/"] = approval.HandlerFor(ap, ap.NonceKey(approval.NewKey))
	return receiver.Serve(ctx, s.store, opts)
}
