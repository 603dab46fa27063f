package watchctl

import (
	"context"
	"io"
	"net/http"

	"github.com/hangdog/hangdog/approval"
	"github.com/hangdog/hangdog/receiver"
)

// Serve runs the home's receiver (`hangdog serve`): trigger links at
// /hook/ and the approval pages at /approve/, at serve.address, until ctx
// ends or, without stay, no link is active.
func (s *Service) Serve(ctx context.Context, stay bool, log io.Writer) error {
	conf, err := s.settings()
	if err != nil {
		return err
	}
	return receiver.Serve(ctx, s.store, receiver.ServeOptions{
		Address: conf.ServeAddress(), Stay: stay, Log: log,
		Mounts: map[string]http.Handler{"/approve/": approval.Handler(s.store)},
	})
}
