// Package approval serves approval pages: GET /approve/<token> shows a
// person the question an agent asked (package watch's approval watchers),
// POST records their decision once. It owns the page (plain HTML, no
// JavaScript, keyboard and screen-reader usable), its defences (a per-page
// nonce bound to the token, strict headers, and the refusal of requests
// from hangdog's own processes and from the agent that asked: the agent
// cannot decide its own link). Where links point is the watcher
// service's (watchctl). The receiver (`hangdog serve`) mounts Handler under /approve/;
// the fleet receiver (serve.sink) mounts HandlerFor over the fleet's
// approvals (package receiver/sink), whose nonce key all its receivers share.
//
// The peer check needs Linux (/proc); elsewhere requests from this
// machine are refused and only other machines may decide.
package approval
