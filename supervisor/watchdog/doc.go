// Package watchdog owns the per-check decision about one supervised command:
// given what the sampler, the output tracker and the decision model saw at a
// check, it says whether to act (background, kill or warn), why, and why not.
//
// It is pure logic over a sequence of observations — no timers, no processes,
// no I/O — so every rule can be tested with tables. The supervisor owns the
// timer, takes the samples, asks the judge and applies the action; a Watch
// keeps what must survive between checks: the due schedule, the agreement
// streaks, how long a process has been blocked reading the terminal, when the
// tree was last active, and the CPU, disk and output counted since the
// previous due check.
//
// Rules, in short. A trigger proposes an action: idle (no CPU, disk I/O at the
// rate of work (disk.go: a few pages are the filesystem's bookkeeping), output
// or approaching timer since the last activity, over consecutive due checks:
// idle.go), stop (the model says stop waiting), expect (a command expected
// to take seconds is still running at a due check), looping (the same output over and over), input (blocked reading a
// terminal nobody is at — certain, acted on within seconds, no model) and
// service (a dev server that is up and quiet is detached). A veto blocks it:
// a declared time bound, signs of progress, an incomplete sample, a person at
// the terminal, a service under the kill action, or the watchdog being off.
// Apart from input and the test-only forced trigger, nothing acts before
// agreeChecks due checks in a row agree at or above the configured confidence.
package watchdog
