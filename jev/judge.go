package jev

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hangdog/hangdog/internal/termtext"
)

// CertainConfidence is the status confidence at which the local judge is not
// second-guessed by a remote backend.
const CertainConfidence = 0.9

// Verdict is the answer to the four watchdog questions at one check.
type Verdict struct {
	Status     Answer
	Persistent Answer
	Stop       Answer
	Expect     Answer
	// RemoteAsked is true when a remote backend was asked at this check.
	RemoteAsked bool
	// RemoteErr is why the remote backend failed, for the log. Its answers
	// were replaced by the local ones.
	RemoteErr error
}

// Judge asks the local judge first and a remote backend only when the local
// one is not certain (status confidence below CertainConfidence) and the
// State changed since the remote's last answer (by Fingerprint). For an
// unchanged State the remote's last answers are reused; whatever the remote
// abstains on, the local answer stands. A remote failure is not retried
// until the State changes: a backend that is down is not hammered every
// check. A Judge is safe for concurrent use.
type Judge struct {
	local, remote Backend

	mu         sync.Mutex
	asked      bool
	lastFP     string
	lastRemote []Answer
}

// NewJudge returns a Judge. local nil means NewLocal(); remote may be nil.
func NewJudge(local, remote Backend) *Judge {
	if local == nil {
		local = NewLocal()
	}
	return &Judge{local: local, remote: remote}
}

// Ask judges st. The error is the local judge's failure (a cancelled
// context); a remote failure is reported in Verdict.RemoteErr.
func (j *Judge) Ask(ctx context.Context, st State) (Verdict, error) {
	qs := Questions()
	local, err := j.local.Ask(ctx, st, qs)
	if err == nil && len(local) != len(qs) {
		err = fmt.Errorf("%s backend gave %d answers to %d questions", j.local.Name(), len(local), len(qs))
	}
	if err != nil {
		return Verdict{}, fmt.Errorf("judge %q: %w", termtext.Clip(st.Command, 80), err)
	}
	v := verdictOf(local)
	if j.remote == nil || (!v.Status.Abstain && v.Status.Confidence >= CertainConfidence) {
		return v, nil
	}

	fp := st.Fingerprint()
	j.mu.Lock()
	if j.asked && fp == j.lastFP {
		cached := j.lastRemote
		j.mu.Unlock()
		return merge(st, v, cached), nil
	}
	j.asked, j.lastFP, j.lastRemote = true, fp, nil
	j.mu.Unlock()

	remote, rerr := j.remote.Ask(ctx, st, qs)
	if len(remote) != len(qs) {
		rerr = errors.Join(rerr, fmt.Errorf("%s backend gave %d answers to %d questions", j.remote.Name(), len(remote), len(qs)))
		remote = nil
	}
	j.mu.Lock()
	if j.lastFP == fp {
		j.lastRemote = remote
	}
	j.mu.Unlock()

	v = merge(st, v, remote)
	v.RemoteAsked = true
	v.RemoteErr = rerr
	return v, nil
}

// verdictOf files answers in Questions() order into a Verdict.
func verdictOf(as []Answer) Verdict {
	var v Verdict
	for _, a := range as {
		switch a.ID {
		case Status.ID:
			v.Status = a
		case Persistent.ID:
			v.Persistent = a
		case Stop.ID:
			v.Stop = a
		case Expect.ID:
			v.Expect = a
		}
	}
	return v
}

// merge takes each remote answer that is not an abstention and does not
// contradict what the evidence makes certain.
func merge(st State, v Verdict, remote []Answer) Verdict {
	for _, r := range remote {
		if r.Abstain {
			continue
		}
		switch r.ID {
		case Status.ID:
			if acceptStatus(st, r) {
				v.Status = r
			}
		case Persistent.ID:
			v.Persistent = r
		case Stop.ID:
			v.Stop = r
		case Expect.ID:
			v.Expect = r
		}
	}
	return v
}

// acceptStatus refuses a remote "stuck" where hangdog's rules forbid it: a
// command blocked on the terminal while a person is at it is waiting for
// them, and a missing sample never counts as idle.
func acceptStatus(st State, r Answer) bool {
	if r.Choice != Stuck {
		return true
	}
	if st.Interactive && st.ReadingTTY {
		return false
	}
	return st.SampleComplete
}
