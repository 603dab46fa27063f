package sink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/hangdog/hangdog/watch"
)

// Approvals are the fleet's approval links, for the fleet receiver's
// pages (approval.HandlerFor): the question from the link's record, the
// first decision kept in the bucket (a create, so of two receivers
// deciding at once one wins) and published to the sandbox that asked.
type Approvals struct{ f *Fleet }

// Approvals is the fleet receiver's approval.Approvals.
func (f *Fleet) Approvals() *Approvals { return &Approvals{f: f} }

// ApprovalByToken reads the approval and its decision, as
// watch.Store.ApprovalByToken does: an unknown, withdrawn or expired
// undecided one is watch.ErrNotFound. Nothing is recorded; a decision
// already recorded is published again.
func (a *Approvals) ApprovalByToken(token string, now time.Time) (*watch.ApprovalView, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	hash := TokenHash(token)
	v, err := a.view(ctx, hash, now)
	if err == nil && v.Decision != nil {
		// Sent again, in case its first publish failed (the page said
		// so and asked for a reload); the stream or the sandbox keeps it
		// once.
		_ = a.send(ctx, hash, v.Decision)
	}
	return v, err
}

func (a *Approvals) view(ctx context.Context, hash string, now time.Time) (*watch.ApprovalView, error) {
	r, err := a.f.record(ctx, hash)
	if err != nil {
		return nil, err
	}
	if r.Kind != watch.KindApproval || r.Approval == nil {
		return nil, fmt.Errorf("link: %w", watch.ErrNotFound)
	}
	v := &watch.ApprovalView{ID: r.Sandbox + "/" + r.Watcher, Approval: *r.Approval, ExpiresAt: r.ExpiresAt}
	e, err := a.f.kv.Get(ctx, decisionKey(hash))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
	case err != nil:
		return nil, fmt.Errorf("read the decision from %s: %w", Bucket, err)
	default:
		var d watch.Decision
		if err := json.Unmarshal(e.Value(), &d); err != nil {
			return nil, fmt.Errorf("the decision in %s: %w", Bucket, err)
		}
		v.Decision = &d
		if !now.Before(d.At.Add(watch.DecidedPageFor)) {
			_ = a.f.forget(ctx, hash) // its page is no longer served
			return nil, fmt.Errorf("link: %w", watch.ErrNotFound)
		}
		return v, nil
	}
	if !now.Before(r.ExpiresAt) {
		_ = a.f.forget(ctx, hash) // it can never be decided
		return nil, fmt.Errorf("link: %w", watch.ErrNotFound)
	}
	return v, nil
}

// Decide records the first decision and publishes it to the sandbox
// before it returns; a later one gets the first with watch.ErrDecided
// (and publishes it again: should the first's publish have failed, it
// reaches the sandbox now; the stream keeps it once). A decision recorded
// but not published is returned with watch.ErrDecisionNotSent.
func (a *Approvals) Decide(token, choice, comment string, now time.Time) (*watch.Decision, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	hash := TokenHash(token)
	v, err := a.view(ctx, hash, now)
	if err != nil {
		return nil, err
	}
	if v.Decision != nil {
		return v.Decision, errors.Join(watch.ErrDecided, a.send(ctx, hash, v.Decision))
	}
	comment, err = watch.CheckDecision(&v.Approval, choice, comment)
	if err != nil {
		return nil, err
	}
	d := &watch.Decision{Choice: choice, Comment: comment, At: now.UTC()}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encode the decision: %w", err)
	}
	_, err = a.f.kv.Create(ctx, decisionKey(hash), b)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return a.Decide(token, choice, comment, now) // another receiver's came first: show it
	}
	if err != nil {
		return nil, fmt.Errorf("record the decision in %s: %w", Bucket, err)
	}
	if err := a.send(ctx, hash, d); err != nil {
		// Kept: the stream may have stored it (an answer lost on the
		// way), and a decision taken back here could still reach the
		// sandbox. The next press sends it again (the stream keeps it once).
		return d, fmt.Errorf("%w: %w", watch.ErrDecisionNotSent, err)
	}
	return d, nil
}

// send publishes the decision under the link's one decision id.
func (a *Approvals) send(ctx context.Context, hash string, d *watch.Decision) error {
	_, err := a.f.publish(ctx, hash, hash+".decision", &message{Kind: kindDecision, At: d.At, Decision: d})
	return err
}

// nonceKeyKey holds the approval pages' nonce key in the bucket.
const nonceKeyKey = "approval-nonce-key"

// NonceKey gives the approval pages' nonce key (an approval.KeySource)
// from the bucket, made by the first receiver that needs it, so a page
// one receiver served is answered at another. newKey makes a key.
func (a *Approvals) NonceKey(newKey func() ([]byte, error)) func() ([]byte, error) {
	return func() ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		for {
			e, err := a.f.kv.Get(ctx, nonceKeyKey)
			if err == nil {
				return e.Value(), nil
			}
			if !errors.Is(err, jetstream.ErrKeyNotFound) {
				return nil, fmt.Errorf("read the approval nonce key from %s: %w", Bucket, err)
			}
			key, err := newKey()
			if err != nil {
				return nil, err
			}
			if _, err := a.f.kv.Create(ctx, nonceKeyKey, key); err != nil && !errors.Is(err, jetstream.ErrKeyExists) {
				return nil, fmt.Errorf("store the approval nonce key in %s: %w", Bucket, err)
			}
			// Created, or another receiver's came first: read what is kept.
		}
	}
}
