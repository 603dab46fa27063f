package sink_test

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// startNATS is a one-node JetStream server on 127.0.0.1 for the test.
// TEMPORARY until the fleet base's helper is merged.
func startNATS(t *testing.T) string {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats did not start")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s.ClientURL()
}
