// Package watchctl is the watcher service: what every front end (the CLI's
// watch, approve and serve commands, the MCP server's watch and approve
// tools, the shell's /watch) does to watchers goes through it, as what they
// do to tasks goes through taskctl. It owns a watcher's lifecycle — create,
// pause, resume, delete, the end of its session (EndSession) — the start
// of the home's runner, the one background task that runs every active
// watcher (ensureRunner; the runner itself is package watchctl/runner,
// kept apart so its program links none of this one, and RunHome is
// hangdog-full's __watch with the fleet's client), the receiver's start and the base URL of every link (base.go), one
// description of a link for both kinds (LinkInfo), and who may act on a
// watcher (Caller).
//
// The watch package below it keeps the records, the sources and the
// policy; receiver and approval serve the links' HTTP side.
package watchctl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/receiver"
	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/watch"
)

// Caller is who asks: the owner check keeps one agent (a session: an MCP
// client, a harness's $HANGDOG_SESSION, a command inside a hangdog task)
// from another's watchers. A person at a terminal is not kept from any:
// the agents' watchers work for them.
type Caller struct {
	// Owner is the caller's session; "" for none.
	Owner string
	// Project is the caller's project, whose watchers a caller without a
	// session lists.
	Project string
	// Person: a person at a terminal, outside any hangdog task. Such a
	// caller shows, pauses, resumes and removes any watcher; what it
	// creates is still its Owner's.
	Person bool
}

// Scope is whose watchers a listing shows: all with all, else the
// caller's (its session's, or without one its project's).
func (c Caller) Scope(all bool) bgtasks.Scope {
	return bgtasks.Scope{All: all, Owner: c.Owner, Project: c.Project}
}

// Options configure Open.
type Options struct {
	// Dir is the caller's directory: the project whose settings apply.
	// "" is this process's.
	Dir string
	// Executable is the hangdog-full binary a watcher's task runs; "" is
	// this program (os.Executable), which is hangdog-full wherever a
	// watcher is created.
	Executable string
}

// Service is the watchers of one home, with the watchers.* settings in
// force for the caller's directory. Its methods may be called from any
// goroutine.
type Service struct {
	store *watch.Store
	dir   string
	exe   string

	once    sync.Once
	conf    *settings.Settings
	confErr error

	// The receiver's last check (ReceiverProblem): one a second, however
	// many links a listing shows.
	recvMu  sync.Mutex
	recvAt  time.Time
	recvErr error
}

// Open opens the home's watchers. The settings of opts.Dir are read when
// first needed (a listing needs none), KeepGoing, as the run paths read
// them: a bad key in a cloned repository's file stops no watch command
// (Warnings lists it).
func Open(reg *bgtasks.Registry, opts Options) (*Service, error) {
	store, err := watch.OpenStore(reg)
	if err != nil {
		return nil, err
	}
	return &Service{store: store, dir: opts.Dir, exe: opts.Executable}, nil
}

// settings loads the settings once and puts the watchers.* limits in the
// store, for create and resume.
func (s *Service) settings() (*settings.Settings, error) {
	s.once.Do(func() {
		dir := s.dir
		if dir == "" {
			dir, _ = os.Getwd()
		}
		s.conf, s.confErr = settings.Load(settings.Options{Dir: dir, KeepGoing: true})
		if s.confErr == nil {
			s.store.Limits = watch.LimitsFrom(s.conf.Watchers())
		}
	})
	return s.conf, s.confErr
}

// Warnings are the problems in the settings that were left out; an error
// if they could not be read at all.
func (s *Service) Warnings() ([]error, error) {
	conf, err := s.settings()
	if err != nil {
		return nil, err
	}
	return conf.Warnings(), nil
}

// Store is the watchers' records, for what reads them beside the service
// (a watcher's details a front end shows: LinkHits).
func (s *Service) Store() *watch.Store { return s.store }

// ownerFor is the owner a caller acts as on watcher id: its own session,
// or, for a person, the watcher's owner.
func (s *Service) ownerFor(c Caller, id string) (string, error) {
	if !c.Person {
		return c.Owner, nil
	}
	w, err := s.store.Lookup(id)
	if err != nil {
		return "", err
	}
	return w.Spec.Owner, nil
}

// Created is a created watcher as front ends report it.
type Created struct {
	*watch.Created
	// TaskID is the home runner's task, which runs it with every other
	// active watcher; TaskErr says why it did not start (the watcher is
	// kept: Resume starts it).
	TaskID  string
	TaskErr error
	// Link describes a link watcher's link (kind webhook).
	Link *LinkInfo
	// ConditionNote, when set, says the watcher's condition will be asked
	// of no decision model, and why: its runner resolves the model as this
	// process does.
	ConditionNote string
}

// Create validates the request, takes the baseline, stores the watcher and
// makes sure the home's runner runs it. A trigger link's base is checked before anything is
// created and made (the receiver started) before its task starts; a link
// that cannot be made removes the watcher again: nothing was created.
func (s *Service) Create(ctx context.Context, c Caller, q *watch.Request) (*Created, error) {
	conf, err := s.settings()
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(strings.TrimSpace(q.Kind), watch.KindWebhook) {
		if err := s.checkBase(); err != nil {
			return nil, err // before anything is created: the link would be unusable
		}
	}
	wc, err := s.store.Create(ctx, q, c.Owner, c.Project)
	if err != nil {
		return nil, err
	}
	out := &Created{Created: wc}
	if wc.Spec.Condition != "" {
		if note, asks := s.keepJudgeEnv(wc.Spec.ID, conf); !asks {
			out.ConditionNote = note
		}
	}
	if wc.Spec.Kind == watch.KindWebhook {
		link, err := s.newLink(ctx, wc.Watcher, c.Owner)
		if err != nil {
			return nil, err
		}
		out.Link = link
	}
	out.TaskID, out.TaskErr = s.startRunner(wc.Spec.ID)
	return out, nil
}

// CreateApproval stores an approval link and starts its watcher's task.
// If the link cannot be made (the receiver does not start, a malformed
// $HANGDOG_RECEIVER_URL), nothing is created.
func (s *Service) CreateApproval(ctx context.Context, c Caller, q *watch.ApprovalRequest) (*Created, error) {
	if _, err := s.settings(); err != nil {
		return nil, err
	}
	if err := s.checkBase(); err != nil {
		return nil, err
	}
	w, _, err := s.store.CreateApproval(q, c.Owner, c.Project)
	if err != nil {
		return nil, err
	}
	link, err := s.newLink(ctx, w, c.Owner)
	if err != nil {
		return nil, err
	}
	out := &Created{Created: &watch.Created{Watcher: w}, Link: link}
	out.TaskID, out.TaskErr = s.startRunner(w.Spec.ID)
	return out, nil
}

// newLink describes a just-created link watcher's link; if it cannot be
// made the watcher is removed again, whichever its kind.
func (s *Service) newLink(ctx context.Context, w *watch.Watcher, owner string) (*LinkInfo, error) {
	link, err := s.linkOf(ctx, w, owner)
	if err == nil {
		return link, nil
	}
	if _, derr := s.store.Delete(w.Spec.ID, owner); derr != nil {
		return nil, fmt.Errorf("%w; and watcher %s could not be removed again: %v", err, w.Spec.ID, derr)
	}
	return nil, fmt.Errorf("%w; nothing was created", err)
}

// List returns the watchers the caller's scope sees (all of them with
// all), oldest first. A listed watcher that is active while the home's
// runner is not (it was killed) has the runner started again.
func (s *Service) List(c Caller, all bool) ([]*watch.Watcher, error) {
	ws, err := s.store.List(c.Scope(all))
	if err != nil {
		return nil, err
	}
	for _, w := range ws {
		if w.Damaged == "" && !w.State.Paused {
			if !s.Running(w) {
				_, _ = s.ensureRunner() // its error is the state's: stopped
			}
			break
		}
	}
	return ws, nil
}

// Get returns a watcher the caller may see; any other is watch.ErrNotFound.
func (s *Service) Get(c Caller, id string) (*watch.Watcher, error) {
	owner, err := s.ownerFor(c, id)
	if err != nil {
		return nil, err
	}
	return s.store.Get(id, owner)
}

// Pause stops a watcher with a reason ("" says its owner paused it); its
// runner sees the change and ends.
func (s *Service) Pause(c Caller, id, reason string) (*watch.Watcher, error) {
	owner, err := s.ownerFor(c, id)
	if err != nil {
		return nil, err
	}
	if reason == "" && c.Person && owner != c.Owner {
		reason = "paused by the user at a terminal"
	}
	if err := s.store.Pause(id, owner, reason); err != nil {
		return nil, err
	}
	w, err := s.store.Get(id, owner)
	if err != nil {
		return nil, err
	}
	return w, s.unregister(context.Background(), w, false)
}

// Resume clears a watcher's pause, starts the home's runner if it is not
// running (a runner killed is started again so) and, for a link, makes
// sure the receiver runs (it may have left while
// the link was paused).
func (s *Service) Resume(ctx context.Context, c Caller, id string) (*watch.Watcher, error) {
	owner, err := s.ownerFor(c, id)
	if err != nil {
		return nil, err
	}
	if _, err := s.settings(); err != nil {
		return nil, err
	}
	w, err := s.store.Resume(id, owner)
	if err != nil {
		return nil, err
	}
	if w.Spec.Condition != "" {
		conf, _ := s.settings()
		s.keepJudgeEnv(id, conf)
	}
	if _, err := s.startRunner(id); err != nil {
		return nil, fmt.Errorf("watcher %s resumed but the watchers' runner did not start: %w", id, err)
	}
	if w.Spec.Link != nil {
		if _, err := s.linkOf(ctx, w, owner); err != nil {
			return nil, fmt.Errorf("watcher %s resumed but its link cannot be called yet: %w", id, err)
		}
	}
	return s.store.Get(id, owner)
}

// Delete removes a watcher; its runner sees the directory go and ends.
func (s *Service) Delete(c Caller, id string) (*watch.Watcher, error) {
	owner, err := s.ownerFor(c, id)
	if err != nil {
		return nil, err
	}
	w, err := s.store.Delete(id, owner)
	if err != nil {
		return nil, err
	}
	return w, s.unregister(context.Background(), w, true)
}

// Secret is a trigger link's signing secret ("" for an unsigned link),
// for the person only: front ends that a model reads never call it.
func (s *Service) Secret(c Caller, id string) (string, error) {
	owner, err := s.ownerFor(c, id)
	if err != nil {
		return "", err
	}
	return s.store.LinkSecret(id, owner)
}

// Link describes a link watcher's link, starting the receiver if need be.
func (s *Service) Link(ctx context.Context, c Caller, id string) (*LinkInfo, error) {
	owner, err := s.ownerFor(c, id)
	if err != nil {
		return nil, err
	}
	w, err := s.store.Get(id, owner)
	if err != nil {
		return nil, err
	}
	return s.linkOf(ctx, w, owner)
}

// Running reports whether the home's runner, which runs every active
// watcher, is alive.
func (s *Service) Running(*watch.Watcher) bool {
	id := s.store.RunnerTask()
	return id != "" && s.taskAlive(id)
}

// taskAlive reports whether task id has not ended.
func (s *Service) taskAlive(id string) bool {
	reg := s.store.Registry()
	t, err := reg.Get(id)
	if err != nil {
		return false
	}
	if t, err = reg.Reconcile(t); err != nil {
		return false
	}
	return !t.State().Ended()
}

// State is a watcher's state in a word: damaged (its files cannot be
// read, or a check of it panicked), paused, stopped (the home's runner is
// not running: the next create, resume or listing starts it), unserved (a
// link whose receiver is not running or not this home's: ReceiverProblem
// says which) or active.
func (s *Service) State(w *watch.Watcher) string {
	switch {
	case w.Damaged != "":
		return "damaged"
	case w.State.Paused:
		return "paused"
	case !s.Running(w):
		return "stopped"
	case s.ReceiverProblem(w) != nil:
		return "unserved"
	}
	return "active"
}

// ReceiverProblem says why w's active link cannot be called now — the
// receiver is not running, or what holds its address instead — or nil
// (also for a watcher that is no active link).
func (s *Service) ReceiverProblem(w *watch.Watcher) error {
	if w.Spec.Link == nil || w.Damaged != "" || !receiver.LinkActive(s.store, w, time.Now()) {
		return nil
	}
	s.recvMu.Lock()
	defer s.recvMu.Unlock()
	if time.Since(s.recvAt) > time.Second {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s.recvErr, s.recvAt = receiver.Check(ctx, s.store), time.Now()
		cancel()
	}
	return s.recvErr
}

// SessionEnded is the pause reason of a watcher whose session ended.
func SessionEnded(session string) string {
	return "its session " + session + " ended (tasks.onSessionEnd: kill)"
}

// EndSession ends the watchers and links a session made, now that it has
// ended, as policy (tasks.onSessionEnd) says: with "kill" each active one
// is paused, saying why (its runner ends; an approval page or a trigger
// link stops answering; the person can still resume or remove it), with
// "keep" they run on. It returns those it paused. taskctl.EndSession ends
// the session's tasks; the front ends call both.
func (s *Service) EndSession(session, policy string) ([]*watch.Watcher, error) {
	if session == "" || policy != sessionEndKill {
		return nil, nil
	}
	ws, err := s.store.List(bgtasks.Scope{Owner: session})
	if err != nil {
		return nil, err
	}
	var ended []*watch.Watcher
	var errs []error
	for _, w := range ws {
		// The session's own, not what its scope also shows (records from
		// before owners were kept belong to nobody).
		if w.Spec.Owner != session || w.State.Paused {
			continue
		}
		if err := s.store.Pause(w.Spec.ID, session, SessionEnded(session)); err != nil {
			if !errors.Is(err, watch.ErrNotFound) {
				errs = append(errs, err)
			}
			continue
		}
		ended = append(ended, w)
		if err := s.unregister(context.Background(), w, false); err != nil {
			errs = append(errs, err)
		}
	}
	return ended, errors.Join(errs...)
}

// sessionEndKill is taskctl.SessionEndKill, the policy that ends a
// session's watchers (taskctl is linux-only; the word is the setting's).
const sessionEndKill = "kill"

// keepJudgeEnv records, for watcher id's runner, the environment variables
// the decision model is resolved from as this caller has them (the runner
// is one process for every watcher, started from whichever caller came
// first). It returns JudgeFor's note and whether a model will be asked.
func (s *Service) keepJudgeEnv(id string, conf *settings.Settings) (note string, asks bool) {
	if conf == nil {
		return "", false
	}
	env := map[string]string{}
	_, note, asks = watch.JudgeFor(conf.Watchdog().DecisionModel, func(k string) string {
		v := os.Getenv(k)
		env[k] = v
		return v
	})
	_ = s.store.SetJudgeEnv(id, env) // without it, the runner's own environment
	return note, asks
}
