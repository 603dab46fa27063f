// Package fleet owns hangdog's link to a NATS JetStream cluster, the
// durable stream that carries every sandbox's events past one machine
// (docs/fleet.md): the connection made from the events.* settings (its
// credentials, and the redaction of every URL it names), the stream and
// its subjects, and the message id that lets JetStream drop a repeat.
//
// Nothing here runs without events.sink (or wake --from): a single machine
// never connects, and the NATS server itself is linked only into tests and
// scripts (package natstest).
//
// Subjects are hangdog.events.<host>.<project>.<session>.<kind>, each of
// the four a token escaped by Token. Message ids are
// <home id>.<seq> (see MsgID).
package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/fleet/autostart"
	"github.com/hangdog/hangdog/settings"
)

// SubjectPrefix begins every event's subject; the stream takes
// SubjectPrefix + ".>".
const SubjectPrefix = "hangdog.events"

// DedupeWindow is how long the stream remembers a message id. A forwarder
// resends at most what it published after its last cursor write, right
// after it restarts, so an hour absorbs a restart after any outage the
// forwarder itself lived through (it keeps retrying with its cursor still).
const DedupeWindow = time.Hour

// Environment variables read for credentials when events.credentials is
// empty: the names the nats CLI uses.
const (
	CredsEnv    = "NATS_CREDS"
	TokenEnv    = "NATS_TOKEN"
	UserEnv     = "NATS_USER"
	PasswordEnv = "NATS_PASSWORD"
)

// Config is what a connection needs: the events.* settings, or wake
// --from's URL with them.
type Config struct {
	URLs        string // comma-separated NATS URLs
	Credentials string // a credentials file; "" reads the environment
	Stream      string
	Replicas    int    // 0: sized to the cluster
	Host        string // the name in subjects; "" is the host name
	// Name is the client's name as the server shows it (nats server
	// report connections).
	Name string
	// Env looks up credentials variables; nil is os.LookupEnv.
	Env func(string) (string, bool)
}

// FromSettings is the Config of the events.* settings.
func FromSettings(e settings.Events) Config {
	return Config{URLs: e.Sink, Credentials: e.Credentials, Stream: e.Stream, Replicas: e.Replicas, Host: e.Host}
}

// HostName is the name this sandbox goes by in subjects.
func (c Config) HostName() string {
	if c.Host != "" {
		return c.Host
	}
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown-host"
	}
	return h
}

// Redact replaces the user information of every URL in a comma-separated
// list (a token, a user and password) with "***", so a message or log
// line never shows it.
func Redact(urls string) string {
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		u, err := url.Parse(p)
		if err != nil {
			// Unparsable: cut everything up to the last '@' of its host part.
			if at := strings.LastIndexByte(p, '@'); at >= 0 {
				if scheme := strings.Index(p, "://"); scheme >= 0 && scheme < at {
					p = p[:scheme+3] + "***" + p[at:]
				} else {
					p = "***" + p[at:]
				}
			}
			parts[i] = p
			continue
		}
		if u.User == nil {
			parts[i] = p
			continue
		}
		u.User = nil
		// Not url.User("***"), which String escapes to %2A%2A%2A.
		parts[i] = strings.Replace(u.String(), "://", "://***@", 1)
	}
	return strings.Join(parts, ",")
}

// Conn is a connection to the cluster and its JetStream context.
type Conn struct {
	NC  *nats.Conn
	JS  jetstream.JetStream
	cfg Config
}

// Close ends the connection.
func (c *Conn) Close() { c.NC.Close() }

// Config is the configuration the connection was made with.
func (c *Conn) Config() Config { return c.cfg }

// authOptions are the credentials, from the file events.credentials names
// or else from the environment (NATS_CREDS, NATS_TOKEN, NATS_USER and
// NATS_PASSWORD); none leaves the URL's own user information, if any.
func authOptions(cfg Config) ([]nats.Option, error) {
	lookup := cfg.Env
	if lookup == nil {
		lookup = os.LookupEnv
	}
	file := cfg.Credentials
	if file == "" {
		file, _ = lookup(CredsEnv)
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			// The path, never the content.
			return nil, fmt.Errorf("read the NATS credentials file: %w", err)
		}
		if strings.Contains(string(b), "BEGIN NATS USER JWT") {
			return []nats.Option{nats.UserCredentials(file)}, nil
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return nil, fmt.Errorf("the NATS credentials file %s is empty: give a .creds file or a file holding a token", file)
		}
		return []nats.Option{nats.Token(tok)}, nil
	}
	if tok, ok := lookup(TokenEnv); ok && tok != "" {
		return []nats.Option{nats.Token(tok)}, nil
	}
	user, _ := lookup(UserEnv)
	pass, _ := lookup(PasswordEnv)
	if user != "" {
		return []nats.Option{nats.UserInfo(user, pass)}, nil
	}
	return nil, nil
}

// Connect connects to the cluster named by cfg.URLs. It fails at once
// when no server answers (the caller decides whether to retry); once
// connected, the client reconnects on its own for as long as it lives.
func Connect(cfg Config) (*Conn, error) {
	if strings.TrimSpace(cfg.URLs) == "" {
		return nil, errors.New("no NATS server given: set events.sink (`hangdog config set events.sink nats://HOST:4222`) or pass --from")
	}
	opts, err := authOptions(cfg)
	if err != nil {
		return nil, err
	}
	name := cfg.Name
	if name == "" {
		name = "hangdog"
	}
	opts = append(opts, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(500*time.Millisecond),
		nats.Timeout(5*time.Second),
		// The client's own error handler prints to stderr; its errors
		// come back on our calls instead.
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
	nc, err := nats.Connect(cfg.URLs, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", Redact(cfg.URLs), err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("JetStream at %s: %w", Redact(cfg.URLs), err)
	}
	return &Conn{NC: nc, JS: js, cfg: cfg}, nil
}

// replicas is the stream's replica count: the setting, or sized to the
// cluster the client knows of (the servers given and those it was told
// of): 3 with 3 or more, else 1.
func (c *Conn) replicas() int {
	if c.cfg.Replicas > 0 {
		return c.cfg.Replicas
	}
	if len(c.NC.Servers()) >= 3 {
		return 3
	}
	return 1
}

// StreamConfig is the stream hangdog creates when it is missing.
func (c *Conn) StreamConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        c.cfg.Stream,
		Description: "hangdog events of every sandbox (docs/fleet.md)",
		Subjects:    []string{SubjectPrefix + ".>"},
		Storage:     jetstream.FileStorage,
		Replicas:    c.replicas(),
		Duplicates:  DedupeWindow,
	}
}

// EnsureStream returns the stream, creating it when missing. An existing
// stream is left as its operator made it (replicas, limits).
func (c *Conn) EnsureStream(ctx context.Context) (jetstream.Stream, error) {
	if c.cfg.Stream == "" {
		return nil, errors.New("no stream name: set events.stream")
	}
	s, err := c.JS.Stream(ctx, c.cfg.Stream)
	if err == nil {
		return s, nil
	}
	if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("look up stream %s at %s: %w", c.cfg.Stream, Redact(c.cfg.URLs), err)
	}
	s, err = c.JS.CreateStream(ctx, c.StreamConfig())
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		// Another sandbox made it meanwhile.
		s, err = c.JS.Stream(ctx, c.cfg.Stream)
	}
	if err != nil {
		return nil, fmt.Errorf("create stream %s at %s: %w", c.cfg.Stream, Redact(c.cfg.URLs), err)
	}
	return s, nil
}

// Token escapes s as one subject token: every byte other than an ASCII
// letter, digit, '-' or '_' becomes %XX (upper-case hex), so '.', '*',
// '>' and spaces never reach a subject, and the empty string is "%" (no
// escaped value is a bare '%'). Unescape reverses it.
func Token(s string) string {
	if s == "" {
		return "%"
	}
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexd[c>>4])
		b.WriteByte(hexd[c&15])
	}
	return b.String()
}

// Unescape is Token's inverse.
func Unescape(tok string) (string, error) {
	if tok == "%" {
		return "", nil
	}
	s, err := url.PathUnescape(tok)
	if err != nil {
		return "", fmt.Errorf("subject token %q: %w", tok, err)
	}
	return s, nil
}

// Subject is where an event of host is published.
func Subject(host string, e bgtasks.Event) string {
	return strings.Join([]string{SubjectPrefix, Token(host), Token(e.Project), Token(e.Owner), Token(e.Kind)}, ".")
}

// Filter is the subject a consumer filters on: each of host, project,
// session and kind that is "" matches any.
func Filter(host, project, session, kind string) string {
	tok := func(s string) string {
		if s == "" {
			return "*"
		}
		return Token(s)
	}
	return strings.Join([]string{SubjectPrefix, tok(host), tok(project), tok(session), tok(kind)}, ".")
}

// Message is what is published for an event: the event as the local log
// holds it, with where it comes from. Seq is the home's own; Host and
// HomeID name the home fleet-wide.
type Message struct {
	Host   string `json:"host"`
	HomeID string `json:"home_id"`
	bgtasks.Event
}

// MsgID is the event's Nats-Msg-Id: the home's id and the event's seq. A
// seq is unique within a home (a watcher fire re-delivered after a crash
// is recognised before it is logged, by its dedupe key) and the home id
// is unique across the fleet, so a repeat of the same line, and only it,
// is dropped by the stream.
func MsgID(homeID string, e bgtasks.Event) string {
	return homeID + "." + fmt.Sprint(e.Seq)
}

// homeIDFile holds the home's fleet-wide id.
const homeIDFile = "home-id"

// Dir is the fleet's directory in a home (the forwarder's lock and log,
// the home id).
func Dir(home string) string { return autostart.Dir(home) }

// HomeID is the home's id in the fleet: 16 random hex digits made on
// first use and kept in <home>/fleet/home-id, so a home made anew at the
// same path (a CI runner's) is a new home, and its seq 1 is not taken for
// a repeat of the old one's.
func HomeID(home string) (string, error) {
	path := filepath.Join(Dir(home), homeIDFile)
	if b, err := os.ReadFile(path); err == nil {
		if id := strings.TrimSpace(string(b)); id != "" {
			return id, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read the home's fleet id: %w", err)
	}
	if err := os.MkdirAll(Dir(home), 0o700); err != nil {
		return "", fmt.Errorf("fleet directory: %w", err)
	}
	var raw [8]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("make the home's fleet id: %w", err)
	}
	id := hex.EncodeToString(raw[:])
	// Created only if absent: two processes racing keep the first's id.
	tmp := path + "." + id + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("write the home's fleet id: %w", err)
	}
	_, err = f.WriteString(id + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp, path)
	}
	_ = os.Remove(tmp)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("write the home's fleet id: %w", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read the home's fleet id: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
