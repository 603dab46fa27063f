package remote

import (
	"io"

	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/jev/askproc"
)

// ServeAsk is the helper of jev/askproc, run as `hangdog __ask`: it reads
// one request from in, asks the remote backend it configures, and writes
// the answers to out. getenv is where the API key is read (the helper's
// environment, inherited from the supervisor). It returns the process's
// exit code.
func ServeAsk(in io.Reader, out io.Writer, getenv func(string) string) int {
	return askproc.Serve(in, out, getenv, connect)
}

func connect(cfg jev.RemoteConfig, getenv func(string) string) (jev.Backend, error) {
	return newClient(cfg, getenv)
}
