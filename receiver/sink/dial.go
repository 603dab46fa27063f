package sink

import (
	"context"

	"github.com/hangdog/hangdog/fleet"
	"github.com/hangdog/hangdog/settings"
)

// Dial connects to the servers serve.sink names, with the credentials of
// events.credentials (or the environment: package fleet), and opens the
// links stream and bucket there, each made with the replicas the events'
// stream would have. Close ends the connection.
func Dial(ctx context.Context, conf *settings.Settings, name string) (*Fleet, error) {
	cfg := fleet.FromSettings(conf.Events())
	cfg.URLs, cfg.Name = conf.ServeSink(), name
	c, err := fleet.Connect(cfg)
	if err != nil {
		return nil, err
	}
	f, err := Open(ctx, c.JS, c.StreamConfig().Replicas)
	if err != nil {
		c.Close()
		return nil, err
	}
	f.conn = c
	return f, nil
}

// Close ends the connection Dial made.
func (f *Fleet) Close() {
	if f.conn != nil {
		f.conn.Close()
	}
}

// SandboxName is the name this sandbox's links go by in the fleet
// receiver's log: events.host, else the host name (as in the events'
// subjects).
func SandboxName(conf *settings.Settings) string {
	return fleet.FromSettings(conf.Events()).HostName()
}

// Redacted is serve.sink with any user information hidden, for messages.
func Redacted(conf *settings.Settings) string { return fleet.Redact(conf.ServeSink()) }
