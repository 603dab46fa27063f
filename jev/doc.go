// Package jev is hangdog's decision model. Given the evidence the supervisor's
// sampler gathered about a running command (a State), it answers the same four
// questions every check: is the command progressing, waiting, stuck or
// looping; is it a service that runs by design; should the caller stop
// waiting; and how long should it take, judged from the command alone.
//
// The embedded local judge answers from the evidence and a table of command
// knowledge, with no network. Remote backends (the hosted typesafe decision
// API, or any OpenAI-compatible chat endpoint) are asked only when the local
// judge is not certain and the evidence changed since their last answer; what
// leaves the machine is capped, marked as untrusted and stripped of secrets.
// Every answer carries the evidence that decided it, in words, and every
// failure of a remote backend becomes an abstention, never an action.
//
// It also defines the one question asked for a watcher
// (ConditionAsker): does the owner's natural-language condition hold for
// what the watched source says? What a model is shown of that source is
// ConditionText: printable, redacted, capped.
//
// This package chooses and checks a remote backend (ResolveRemote) but has
// no HTTP client: that is package jev/remote, which the supervisor reaches
// through a helper process (jev/askproc), so that the program started for
// every command links none of net/http.
package jev
