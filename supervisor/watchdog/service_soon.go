package watchdog

import "time"

// serviceCadence is how often due checks come while a quiet command has a
// listening socket: a server an agent started in the foreground is
// detached within seconds of going quiet (two agreeing checks), not at the
// first check minutes later, while its caller waits.
const serviceCadence = 5 * time.Second

// noteListening brings the next due check forward when a sample finds the
// command listening while it could be detached as a service, and it says it
// is one: the command line is a known server (a dev server, http.server),
// or it printed a ready line ("Serving HTTP on", "listening on",
// "ready in"). A program that only listens, quietly, keeps the configured
// schedule: a test fixture or a helper waiting a few seconds looks the same.
// The due check decides as always: agreeing checks, no output in the
// window. Short check timings like these are what the scenario corpora are
// run at, with no false action.
func (w *Watch) noteListening(o Observation) {
	_, _, ready := readySignal(o.Output)
	says := w.service.persistent || w.service.never || ready
	if !o.TreeOK || len(o.Tree.Listening) == 0 || !says || w.interactive || w.background || w.action() != ActionBackground {
		w.serviceSoon = time.Time{}
		return
	}
	if w.serviceSoon.IsZero() {
		w.serviceSoon = o.Now
	}
}

// serviceDue is NextDue's answer while a listening command is suspected of
// being a service: the next check at the fast cadence, if that is sooner.
func (w *Watch) serviceDue(next time.Time) time.Time {
	if w.serviceSoon.IsZero() || !w.serviceSoon.Before(next) {
		return next
	}
	return w.serviceSoon
}

// afterDueForService schedules the next service check, or stops the hurry
// once the command no longer listens.
func (w *Watch) afterDueForService(o Observation) {
	if w.serviceSoon.IsZero() {
		return
	}
	w.serviceSoon = time.Time{}
	w.noteListening(o)
	if !w.serviceSoon.IsZero() {
		w.serviceSoon = o.Now.Add(serviceCadence)
	}
}
