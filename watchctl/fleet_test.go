package watchctl

import (
	"strings"
	"testing"

	"github.com/hangdog/hangdog/watch"
)

// With serve.sink set, a link needs the fleet receiver's address and the
// fleet's servers: without $HANGDOG_RECEIVER_URL both kinds are refused
// before anything is created; with it but no server answering, the link
// cannot be registered and nothing is created either (the watcher made
// is removed again).
func TestFleetLinksNeedTheReceiverAndTheServers(t *testing.T) {
	svc := openTest(t)
	t.Setenv("HANGDOG_SERVE_SINK", "nats://127.0.0.1:1")
	t.Setenv(ReceiverURLEnv, "")
	me := Caller{Owner: "s1"}
	_, werr := svc.Create(t.Context(), me, &watch.Request{Kind: watch.KindWebhook})
	_, aerr := svc.CreateApproval(t.Context(), me, &watch.ApprovalRequest{Question: "Ship?"})
	for _, err := range []error{werr, aerr} {
		if err == nil || !strings.Contains(err.Error(), "serve.sink is set") || !strings.Contains(err.Error(), ReceiverURLEnv) {
			t.Fatalf("without the fleet receiver's address: %v", err)
		}
	}
	t.Setenv(ReceiverURLEnv, "https://hooks.example.net")
	_, werr = svc.Create(t.Context(), me, &watch.Request{Kind: watch.KindWebhook})
	_, aerr = svc.CreateApproval(t.Context(), me, &watch.ApprovalRequest{Question: "Ship?"})
	for _, err := range []error{werr, aerr} {
		if err == nil || !strings.Contains(err.Error(), "register the link at the fleet (serve.sink)") || !strings.Contains(err.Error(), "nothing was created") {
			t.Fatalf("with no server answering: %v", err)
		}
	}
	if ws, err := svc.List(Caller{Person: true}, true); err != nil || len(ws) != 0 {
		t.Fatalf("watchers after the refusals: %v %v", ws, err)
	}
}
