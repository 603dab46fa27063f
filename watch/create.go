package watch

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Created is what create reports: the watcher and its first check.
type Created struct {
	*Watcher
	// Baseline is the first check's reading ("currently 95.1"), or why
	// there is none yet (the source was unreachable).
	Baseline string `json:"baseline"`
	// Warning, when set, says what the user should know of the target:
	// other users can change the watched file.
	Warning string `json:"warning,omitempty"`
}

// Create validates the request, takes the baseline (the first check, which
// never fires) and stores the watcher. A refused request, or a source that
// does not exist (404, no such file), writes nothing; an unreachable one is
// created and takes its baseline at the first check that gets through.
// The caller starts its runner.
func (s *Store) Create(ctx context.Context, q *Request, owner, project string) (*Created, error) {
	spec, err := q.ValidateWith(s.Limits, owner, time.Now())
	if err != nil {
		return nil, err
	}
	spec.Project = project
	if err := s.capRefusal(owner); err != nil { // before any fetch; checked again under the lock
		return nil, err
	}
	if spec.Kind == KindWebhook {
		return s.createWebhook(spec, q)
	}
	src, err := newSource(spec)
	if err != nil {
		return nil, err
	}
	st := &State{}
	obs, oerr := src.Observe(ctx, st)
	var base string
	switch {
	case errors.Is(oerr, ErrUnreachable):
		st.LastError = oerr.Error()
		base = "not reachable now (" + oerr.Error() + "); the first check that gets through is the baseline"
	case oerr != nil:
		return nil, fmt.Errorf("%s: %w; nothing was created", spec.Target, oerr)
	default:
		if obs.Cursor != nil {
			st.Cursor = obs.Cursor
		}
		st.ETag, st.LastModified = obs.ETag, obs.LastModified
		v, err := baseline(spec, st, obs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w; nothing was created", spec.Target, err)
		}
		base = "currently " + v
	}
	now := time.Now()
	st.Checks, st.LastCheck = 1, &now
	if _, err := s.add(spec, st); err != nil {
		return nil, err
	}
	out := &Created{Watcher: &Watcher{Spec: spec, State: st}, Baseline: base}
	if w, ok := src.(interface{ warning() string }); ok {
		out.Warning = w.warning()
	}
	return out, nil
}

// baseline records an observation as the state to compare against, and
// returns what it read.
func baseline(spec *Spec, st *State, obs *Observation) (string, error) {
	st.Baselined = true
	if spec.Kind == KindCommand {
		// A command's first run sets its cursor; what it reported is the
		// starting point, not news.
		st.Value = "idle"
		if obs.Fire {
			st.Value = clip(orElse(obs.Payload, "activity"), 120)
		}
		return st.Value, nil
	}
	st.Hash = hashText(obs.Text)
	v, err := evaluate(spec, obs, nil)
	if err != nil {
		return "", err
	}
	st.Value, st.Holds = v.value, v.holds
	st.Keys = st.Keys[:0]
	for _, it := range v.fresh {
		st.Keys = append(st.Keys, it.Key)
	}
	if len(st.Keys) > maxKeys {
		st.Keys = st.Keys[len(st.Keys)-maxKeys:]
	}
	if spec.Kind == KindProcess {
		v.value = obs.Text
		st.Value = v.value
	}
	return v.value, nil
}
