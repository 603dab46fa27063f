package fleet_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/fleet"
	"github.com/hangdog/hangdog/fleet/natstest"
)

func TestTokenEscapesAndRoundTrips(t *testing.T) {
	for _, s := range []string{"", "%", "plain-word_1", "/home/u/my.project", "a b*c>d", "été", "hangdog.events.x"} {
		tok := fleet.Token(s)
		if strings.ContainsAny(tok, ".*> \t") || tok == "" {
			t.Errorf("Token(%q) = %q: not a valid subject token", s, tok)
		}
		back, err := fleet.Unescape(tok)
		if err != nil || back != s {
			t.Errorf("Unescape(Token(%q)) = %q, %v", s, back, err)
		}
	}
	if fleet.Token("") == fleet.Token("%") {
		t.Error("the empty string and \"%\" escape alike")
	}
}

func TestSubjectAndFilter(t *testing.T) {
	e := bgtasks.Event{Kind: "exited", Project: "/src/app.v2", Owner: "sess-1"}
	got := fleet.Subject("box.1", e)
	want := "hangdog.events.box%2E1.%2Fsrc%2Fapp%2Ev2.sess-1.exited"
	if got != want {
		t.Errorf("Subject = %q, want %q", got, want)
	}
	if f := fleet.Filter("", "/src/app.v2", "", "exited"); f != "hangdog.events.*.%2Fsrc%2Fapp%2Ev2.*.exited" {
		t.Errorf("Filter = %q", f)
	}
}

func TestRedactHidesUserInfo(t *testing.T) {
	in := "nats://s3cret-token@h1:4222, nats://bob:pa55@h2:4222,nats://h3:4222,nats://x y:pw@bad host"
	out := fleet.Redact(in)
	for _, secret := range []string{"s3cret", "pa55", "bob", ":pw"} {
		if strings.Contains(out, secret) {
			t.Errorf("Redact(%q) = %q: shows %q", in, out, secret)
		}
	}
	if !strings.HasPrefix(out, "nats://***@h1:4222,") || !strings.Contains(out, ",nats://h3:4222,") {
		t.Errorf("Redact lost the hosts: %q", out)
	}
}

func TestHomeIDIsStableAndPerHome(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	id1, err := fleet.HomeID(a)
	if err != nil {
		t.Fatal(err)
	}
	id2, _ := fleet.HomeID(a)
	id3, _ := fleet.HomeID(b)
	if id1 == "" || id1 != id2 || id1 == id3 {
		t.Errorf("home ids %q %q (same home), %q (another)", id1, id2, id3)
	}
	fi, err := os.Stat(filepath.Join(a, "fleet"))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("fleet dir mode: %v %v", fi, err)
	}
}

func publish(t *testing.T, c *fleet.Conn, homeID string, e bgtasks.Event) *jetstream.PubAck {
	t.Helper()
	body, _ := json.Marshal(fleet.Message{Host: "h", HomeID: homeID, Event: e})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ack, err := c.JS.Publish(ctx, fleet.Subject("h", e), body, jetstream.WithMsgID(fleet.MsgID(homeID, e)))
	if err != nil {
		t.Fatalf("publish %d: %v", e.Seq, err)
	}
	return ack
}

// A 3-node cluster gets a stream of 3 replicas, a repeated message id is
// dropped, and the stream keeps its messages while a node is down and
// after it comes back.
func TestStreamOnThreeNodes(t *testing.T) {
	cl := natstest.StartT(t, 3)
	c, err := fleet.Connect(fleet.Config{URLs: cl.NodeURL(0), Stream: "EV"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := c.EnsureStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.Replicas != 3 || info.Config.Duplicates != fleet.DedupeWindow {
		t.Fatalf("stream replicas %d, duplicates %s; want 3 and %s", info.Config.Replicas, info.Config.Duplicates, fleet.DedupeWindow)
	}
	e := bgtasks.Event{Seq: 1, Kind: "exited", Owner: "s"}
	if a := publish(t, c, "home1", e); a.Duplicate {
		t.Fatal("first publish taken for a duplicate")
	}
	if a := publish(t, c, "home1", e); !a.Duplicate {
		t.Fatal("the same message id twice was stored twice")
	}
	if a := publish(t, c, "home2", e); a.Duplicate {
		t.Fatal("another home's seq 1 taken for a duplicate")
	}
	cl.Kill(1)
	publish(t, c, "home1", bgtasks.Event{Seq: 2, Kind: "exited"})
	if err := cl.Restart(1); err != nil {
		t.Fatal(err)
	}
	// A second EnsureStream finds it and leaves it be.
	s, err = c.EnsureStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	info, err = s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 3 {
		t.Errorf("stream holds %d messages, want 3", info.State.Msgs)
	}
}

// Credentials come from the file events.credentials names or the
// environment; a wrong one is refused, and no message shows it.
func TestCredentials(t *testing.T) {
	const token = "tok-s3cret-42"
	cl := natstest.StartT(t, 1, func(o *server.Options) { o.Authorization = token })
	noEnv := func(string) (string, bool) { return "", false }
	if _, err := fleet.Connect(fleet.Config{URLs: cl.URLs(), Env: noEnv}); err == nil {
		t.Fatal("connected without the token")
	}
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := fleet.Connect(fleet.Config{URLs: cl.URLs(), Credentials: file, Env: noEnv})
	if err != nil {
		t.Fatalf("with the token file: %v", err)
	}
	c.Close()
	env := func(k string) (string, bool) {
		if k == fleet.TokenEnv {
			return token, true
		}
		return "", false
	}
	c, err = fleet.Connect(fleet.Config{URLs: cl.URLs(), Env: env})
	if err != nil {
		t.Fatalf("with NATS_TOKEN: %v", err)
	}
	c.Close()
	bad := strings.Replace(cl.URLs(), "nats://", "nats://wrong-s3cret@", 1)
	_, err = fleet.Connect(fleet.Config{URLs: bad, Env: noEnv})
	if err == nil {
		t.Fatal("connected with a wrong token")
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the error shows the credentials: %v", err)
	}
}

// A single node gets a stream of one replica.
func TestStreamOnOneNode(t *testing.T) {
	cl := natstest.StartT(t, 1)
	c, err := fleet.Connect(fleet.Config{URLs: cl.URLs(), Stream: "EV"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := c.EnsureStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := s.Info(ctx); info == nil || info.Config.Replicas != 1 {
		t.Fatalf("stream info %+v", info)
	}
}
