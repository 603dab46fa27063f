// Package sink is the fleet's side of links (serve.sink): one receiver,
// `hangdog serve` on a public host, takes the trigger-link deliveries and
// approval decisions of every sandbox and hands each to the sandbox that
// made the link through NATS JetStream. It owns what they share there:
//
//   - the links bucket, a key-value store: each sandbox registers a link
//     there when it is made (Register, keyed by a hash of the token) and
//     withdraws it when it is paused or removed (Unregister); the fleet
//     receiver keeps each link's hits, rate windows, dedupe record and an
//     approval's decision under the same key, so several receivers behind
//     a load balancer share them;
//   - the links stream: one subject per link (SubjectOf), a message per
//     accepted delivery or decision, its message id the delivery's, so a
//     retry is stored once;
//   - the fleet receiver's Links (package receiver) and Approvals (package
//     approval) over them;
//   - Consume, which a sandbox's link watcher runs: a durable consumer of
//     its own subject that stores each message in the watcher's inbox as
//     the local receiver would, acknowledged only once it is stored.
//
// The connection itself (servers, credentials) is package fleet's (Dial).
// Without serve.sink nothing here is used and no connection is made.
package sink

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/hangdog/hangdog/fleet"
	"github.com/hangdog/hangdog/watch"
)

// Names in JetStream. The stream's subjects are SubjectPrefix and a
// link's token hash (hex, a valid subject token); the bucket's keys
// start with the same hash (keys.go).
const (
	Stream        = "HANGDOG_LINKS"
	SubjectPrefix = "hangdog.links."
	Bucket        = "hangdog-links"
)

// Retention of the stream: a delivery waits this long for its sandbox
// (the longest an approval may stay open) and is removed once the
// sandbox acknowledged it (a work queue). Within dupWindow a message id
// is stored once; the bucket's record of deliveries covers the rest of
// watch.DedupeKey's window, and the sandbox's own record after that.
const (
	maxAge    = watch.MaxApprovalExpiry
	dupWindow = watch.BodyDedupeWindow
)

// Fleet is the links stream and bucket on one connection.
type Fleet struct {
	js   jetstream.JetStream
	kv   jetstream.KeyValue
	conn *fleet.Conn // Dial's, closed by Close
}

// Open finds the links stream and bucket, creating those that are missing
// with replicas copies (an existing one keeps its own configuration).
func Open(ctx context.Context, js jetstream.JetStream, replicas int) (*Fleet, error) {
	if replicas < 1 {
		replicas = 1
	}
	if _, err := js.Stream(ctx, Stream); errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = js.CreateStream(ctx, jetstream.StreamConfig{
			Name: Stream, Subjects: []string{SubjectPrefix + ">"},
			Description: "hangdog: deliveries and decisions the fleet receiver accepted, for the sandbox of each link",
			Retention:   jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage,
			MaxAge: maxAge, Duplicates: dupWindow, Replicas: replicas,
		})
		if err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return nil, fmt.Errorf("create the stream %s: %w", Stream, err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("the stream %s: %w", Stream, err)
	}
	kv, err := js.KeyValue(ctx, Bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: Bucket, Description: "hangdog: links of every sandbox, their secrets, hits, rate windows and decisions",
			Storage: jetstream.FileStorage, Replicas: replicas, History: 1,
		})
		if errors.Is(err, jetstream.ErrBucketExists) {
			kv, err = js.KeyValue(ctx, Bucket)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("the key-value bucket %s: %w", Bucket, err)
	}
	return &Fleet{js: js, kv: kv}, nil
}

// TokenHash is what names a link in the fleet: the hash its watcher's
// spec keeps (watch.LinkTokenHash). The token itself is never sent.
func TokenHash(token string) string { return watch.LinkTokenHash(token) }

// SubjectOf is the subject of a link's deliveries.
func SubjectOf(hash string) string { return SubjectPrefix + hash }

// msgID is a delivery's message id: the link and the delivery's dedupe
// key, so one delivery is one message whichever receiver took it.
func msgID(hash, dedupeKey string) string { return hash + "." + dedupeKey }

// durableOf names a link's consumer: its hash's first 128 bits.
func durableOf(hash string) string { return "link-" + hash[:32] }

// opTimeout bounds one round trip of a request's work at the servers.
const opTimeout = 10 * time.Second
