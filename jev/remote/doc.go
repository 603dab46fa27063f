// Package remote is the HTTP client of jev's remote decision models: the
// hosted typesafe decision API and any OpenAI-compatible chat endpoint. What
// leaves the machine is built here (capped, redacted, the output marked as
// untrusted), and every failure becomes an abstention. It also asks a
// watcher's natural-language condition (NewConditionAsker): the watched
// text redacted, capped and marked untrusted, no tools, a small token
// budget, over the same client.
//
// It is the only part of the decision model that imports net/http, so that
// the supervisor, which asks through a helper process (jev/askproc), links
// none of it. The helper is `hangdog __ask`, which runs ServeAsk.
package remote
