package sink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/hangdog/hangdog/watch"
)

// Record is what the fleet receiver knows of a link: everything it checks
// a delivery or a decision against. It is stored under the token's hash
// (never the token: a reader of the bucket cannot call a link by its URL),
// but it holds a signed link's secret, which the receiver needs to verify
// a signature: whoever can read the bucket can sign deliveries for every
// signed link of the fleet, and learns every link's limits and every
// approval's question and options. Give the bucket's read and write
// permissions to the sandboxes and the receivers only (docs/fleet.md).
type Record struct {
	Kind string `json:"kind"` // watch.KindWebhook or watch.KindApproval
	// Sandbox and Watcher name the link in the receiver's log: the
	// sandbox's name (events.host, else its host name) and the watcher's id.
	Sandbox    string    `json:"sandbox"`
	Watcher    string    `json:"watcher"`
	ExpiresAt  time.Time `json:"expires_at"`
	Signature  string    `json:"signature,omitempty"`
	Secret     string    `json:"secret,omitempty"`
	MaxHits    int       `json:"max_hits,omitempty"`
	RatePerMin int       `json:"rate_per_min,omitempty"`
	// Approval is the page's question, details and options (never the
	// asking agent's pid: it means nothing on the receiver's machine).
	Approval *watch.Approval `json:"approval,omitempty"`
}

// Keys under a link's hash H: H its Record, H.hits the deliveries
// accepted, H.w.<kind> a rate window (a receiver.Bucket), H.seen.<key>
// when a delivery was passed on (watch.DedupeKey), H.decision an
// approval's decision.
func recordKey(h string) string         { return h }
func hitsKey(h string) string           { return h + ".hits" }
func windowKey(h, kind string) string   { return h + ".w." + kind }
func seenKeyOf(h, dedupe string) string { return h + ".seen." + dedupe }
func decisionKey(h string) string       { return h + ".decision" }

// RecordFor is the record of a link watcher: its spec, the secret of a
// signed trigger link, and the sandbox's name.
func RecordFor(w *watch.Watcher, secret, sandbox string) (*Record, error) {
	sp := w.Spec
	if sp.Link == nil || sp.ExpiresAt == nil {
		return nil, fmt.Errorf("watcher %s is a %s watcher: only trigger and approval links go through the fleet receiver", sp.ID, sp.Kind)
	}
	r := &Record{Kind: sp.Kind, Sandbox: sandbox, Watcher: sp.ID, ExpiresAt: *sp.ExpiresAt}
	switch sp.Kind {
	case watch.KindWebhook:
		r.Signature, r.Secret, r.MaxHits, r.RatePerMin = sp.Link.Signature, secret, sp.Link.MaxHits, sp.Link.RatePerMin
	case watch.KindApproval:
		if sp.Approval == nil {
			return nil, fmt.Errorf("watcher %s: an approval without its question", sp.ID)
		}
		r.Approval = &watch.Approval{Question: sp.Approval.Question, Details: sp.Approval.Details, Options: sp.Approval.Options}
	}
	return r, nil
}

// Register makes the link of hash callable at the fleet receiver (a
// create or a resume). hits is what the sandbox has counted already: the
// bucket's count never goes below it, so a resumed link does not take
// more than its max_hits in all.
func (f *Fleet) Register(ctx context.Context, hash string, r *Record, hits int) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode the link's record: %w", err)
	}
	if _, err := f.kv.Put(ctx, recordKey(hash), b); err != nil {
		return fmt.Errorf("register the link in %s: %w", Bucket, err)
	}
	for {
		n, rev, err := f.counter(ctx, hitsKey(hash))
		if err != nil || n >= hits {
			return err
		}
		if err := f.setCounter(ctx, hitsKey(hash), hits, rev); !errors.Is(err, errConflict) {
			return err
		}
	}
}

// Withdraw makes the link uncallable (a pause): its record goes, its
// hits, windows and dedupe record stay for a resume.
func (f *Fleet) Withdraw(ctx context.Context, hash string) error {
	if err := f.kv.Delete(ctx, recordKey(hash)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("withdraw the link from %s: %w", Bucket, err)
	}
	return nil
}

// Remove forgets the link (a delete): every key under its hash, the
// deliveries not yet consumed, and its consumer.
func (f *Fleet) Remove(ctx context.Context, hash string) error {
	if err := f.Withdraw(ctx, hash); err != nil {
		return err
	}
	errs := []error{f.forget(ctx, hash)}
	if st, err := f.js.Stream(ctx, Stream); err == nil {
		if err := st.Purge(ctx, jetstream.WithPurgeSubject(SubjectOf(hash))); err != nil {
			errs = append(errs, err)
		}
		if err := st.DeleteConsumer(ctx, durableOf(hash)); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			errs = append(errs, err)
		}
	} else {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove the link from the fleet: %w", err)
	}
	return nil
}

// forget purges every key under the link's hash, its record last. What
// the stream holds for the sandbox stays: it was accepted.
func (f *Fleet) forget(ctx context.Context, hash string) error {
	var errs []error
	if kl, err := f.kv.ListKeysFiltered(ctx, hash+".>"); err == nil {
		for k := range kl.Keys() {
			if err := f.kv.Purge(ctx, k); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
				errs = append(errs, err)
			}
		}
	} else if !errors.Is(err, jetstream.ErrNoKeysFound) {
		errs = append(errs, err)
	}
	if err := f.kv.Purge(ctx, recordKey(hash)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// record reads a link's record; an unknown one is watch.ErrNotFound.
func (f *Fleet) record(ctx context.Context, hash string) (*Record, error) {
	e, err := f.kv.Get(ctx, recordKey(hash))
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrInvalidKey) {
		return nil, fmt.Errorf("link: %w", watch.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read the link from %s: %w", Bucket, err)
	}
	var r Record
	if err := json.Unmarshal(e.Value(), &r); err != nil {
		return nil, fmt.Errorf("the link's record in %s: %w", Bucket, err)
	}
	return &r, nil
}

// errConflict: another receiver changed the key first; read and try again.
var errConflict = errors.New("changed meanwhile")

// counter reads a count and its revision (0: no such key).
func (f *Fleet) counter(ctx context.Context, key string) (int, uint64, error) {
	e, err := f.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read %s: %w", key, err)
	}
	n, err := strconv.Atoi(string(e.Value()))
	if err != nil {
		return 0, 0, fmt.Errorf("read %s: %w", key, err)
	}
	return n, e.Revision(), nil
}

// setCounter writes a count if the key is still at rev (0: absent);
// errConflict if it is not.
func (f *Fleet) setCounter(ctx context.Context, key string, n int, rev uint64) error {
	return f.cas(ctx, key, []byte(strconv.Itoa(n)), rev)
}

// cas writes value if key is still at rev (0: absent or deleted).
func (f *Fleet) cas(ctx context.Context, key string, value []byte, rev uint64) error {
	var err error
	if rev == 0 {
		_, err = f.kv.Create(ctx, key, value)
	} else {
		_, err = f.kv.Update(ctx, key, value, rev)
	}
	if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return errConflict
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	return nil
}
