package approval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/hangdog/hangdog/watch"
)

// maxForm bounds a posted form: a comment of MaxComment characters, the
// nonce and a decision fit many times over.
const maxForm = 64 << 10

// Approvals are where the page finds an approval by its link token and
// records a decision: a home's watch.Store, or the fleet's (the fleet
// receiver, `hangdog serve` with serve.sink, serves every sandbox's
// pages and hands each decision to the sandbox that asked). Both answer
// with the errors of watch.Store: watch.ErrNotFound, watch.ErrDecided,
// watch.ErrBadChoice.
type Approvals interface {
	ApprovalByToken(token string, now time.Time) (*watch.ApprovalView, error)
	Decide(token, choice, comment string, now time.Time) (*watch.Decision, error)
}

type handler struct {
	store Approvals
	keys  *keyring
	now   func() time.Time
}

// Handler serves /approve/<token> for the approval watchers of store: GET
// shows the page, POST with a decision and the page's nonce decides. It
// takes the token from the path's last element, so it works mounted at
// /approve/ with or without the prefix stripped. Answers: 200 the page or
// the recorded decision; 404 for an unknown, expired, paused or deleted
// link (all alike); 409 for a decision after the first (the page shows
// it); 403 for a request from hangdog's processes or the agent that
// asked, a missing or wrong nonce, or a cross-site post; 400 for a
// decision that is no option; 405 for other methods.
func Handler(store *watch.Store) http.Handler {
	return HandlerFor(store, FileKey(filepath.Join(store.Registry().Home(), keyFile)))
}

// HandlerFor is Handler over other Approvals, its nonce key from key
// (the fleet receivers share theirs).
func HandlerFor(src Approvals, key KeySource) http.Handler {
	h := &handler{
		store: src,
		keys:  &keyring{load: key},
		now:   time.Now,
	}
	// The nonce key is made now, when the receiver starts, so that opening
	// a page never writes anything; a failure here is tried again (and
	// answered 500) at the first page.
	_, _ = h.keys.get()
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", csp)
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Type", "text/html; charset=utf-8")

	token := r.URL.Path
	if i := strings.LastIndex(token, "/"); i >= 0 {
		token = token[i+1:]
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		h.get(w, r, token)
	case http.MethodPost:
		h.post(w, r, token)
	default:
		hd.Set("Allow", "GET, HEAD, POST")
		h.page(w, r, http.StatusMethodNotAllowed, &pageData{Title: "Not allowed", Heading: "Not allowed",
			Note: "An approval page is opened (GET) and answered with its buttons (POST)."})
	}
}

func (h *handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.page(w, r, http.StatusNotFound, &pageData{Title: "No such approval", Heading: "No such approval",
		Note: "This link is unknown, has expired or was withdrawn. Ask for a new one."})
}

func (h *handler) get(w http.ResponseWriter, r *http.Request, token string) {
	v, err := h.store.ApprovalByToken(token, h.now())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if why := refusal(r, &v.Approval); why != "" {
		h.refuse(w, r, why)
		return
	}
	if v.Decision != nil {
		h.page(w, r, http.StatusOK, h.decidedPage(v, "Already decided", ""))
		return
	}
	key, err := h.keys.get()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.page(w, r, http.StatusOK, h.formPage(v, key, token, "", ""))
}

func (h *handler) post(w http.ResponseWriter, r *http.Request, token string) {
	now := h.now()
	v, err := h.store.ApprovalByToken(token, now)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if why := refusal(r, &v.Approval); why != "" {
		h.refuse(w, r, why)
		return
	}
	// Cross-site form posts: the browser says so (an agent's own client
	// may leave the header out; the nonce stops it then).
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" && s != "none" {
		h.page(w, r, http.StatusForbidden, &pageData{Title: "Refused", Heading: "Refused",
			Note: "This decision was sent from another site (Sec-Fetch-Site: " + s + "). Open the link itself and press a button there."})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		h.page(w, r, http.StatusBadRequest, &pageData{Title: "Bad request", Heading: "Bad request", Note: "The form could not be read: " + err.Error()})
		return
	}
	key, err := h.keys.get()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	choice, comment := r.PostForm.Get("decision"), r.PostForm.Get("comment")
	if err := checkNonce(key, token, r.PostForm.Get("nonce"), now); err != nil {
		if v.Decision != nil {
			h.page(w, r, http.StatusConflict, h.decidedPage(v, "Already decided", ""))
			return
		}
		p := h.formPage(v, key, token, comment, "Nothing was recorded: "+err.Error()+". Check the question and press your choice again.")
		h.page(w, r, http.StatusForbidden, p)
		return
	}
	d, err := h.store.Decide(token, choice, comment, now)
	switch {
	case errors.Is(err, watch.ErrDecided):
		v.Decision = d
		h.page(w, r, http.StatusConflict, h.decidedPage(v, "Already decided", "A decision was made before yours; yours was not recorded."))
	case errors.Is(err, watch.ErrDecisionNotSent):
		v.Decision = d
		p := h.decidedPage(v, "Recorded, not yet sent", "Your decision is recorded but could not be passed on yet. Reload this page in a moment to send it on; the first decision stands.")
		h.page(w, r, http.StatusServiceUnavailable, p)
	case errors.Is(err, watch.ErrBadChoice):
		h.page(w, r, http.StatusBadRequest, h.formPage(v, key, token, comment, "Nothing was recorded: "+err.Error()+"."))
	case err != nil:
		h.fail(w, r, err)
	default:
		v.Decision = d
		h.page(w, r, http.StatusOK, h.decidedPage(v, "Decision recorded", ""))
	}
}

func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, watch.ErrNotFound) {
		h.notFound(w, r)
		return
	}
	// Not the error's text: it names files under the home.
	h.page(w, r, http.StatusInternalServerError, &pageData{Title: "Error", Heading: "Something went wrong",
		Note: "The approval could not be read or stored; nothing was recorded. Try again in a moment."})
}

func (h *handler) refuse(w http.ResponseWriter, r *http.Request, why string) {
	h.page(w, r, http.StatusForbidden, &pageData{Title: "Refused: not from a person", Heading: "Only a person can answer this",
		Note: "This request came from a program hangdog runs, or from the agent that asked: " + why + ". " +
			"An agent cannot decide its own approval. Open the link in your own browser; a tunnel or proxy in front of this page must not run as a hangdog task."})
}

func (h *handler) formPage(v *watch.ApprovalView, key []byte, token, comment, note string) *pageData {
	p := h.basePage(v)
	p.Form, p.Nonce, p.Comment, p.Note = true, makeNonce(key, token, h.now()), comment, note
	return p
}

func (h *handler) decidedPage(v *watch.ApprovalView, heading, note string) *pageData {
	p := h.basePage(v)
	p.Title = heading + ": " + v.Approval.Question
	p.Heading, p.Note = heading, note
	p.Expires = ""
	p.Decided = &decided{Choice: v.Decision.Choice, Comment: v.Decision.Comment, At: v.Decision.At.Local().Format("Mon 2 Jan 2006 15:04 MST")}
	return p
}

func (h *handler) basePage(v *watch.ApprovalView) *pageData {
	return &pageData{
		Title: "Approval: " + v.Approval.Question, Heading: v.Approval.Question, Question: v.Approval.Question,
		Details: v.Approval.Details, Options: v.Approval.Options,
		Expires: v.ExpiresAt.Local().Format("Mon 2 Jan 2006 15:04 MST"), ExpiresIn: watch.ExpiresIn(v.ExpiresAt, h.now()),
		ExpiresAt: v.ExpiresAt.UTC().Format(time.RFC3339),
	}
}

func (h *handler) page(w http.ResponseWriter, r *http.Request, code int, p *pageData) {
	var b bytes.Buffer
	if err := pageTmpl.Execute(&b, p); err != nil {
		http.Error(w, fmt.Sprintf("approval page: %v", err), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = io.Copy(w, &b)
	}
}
