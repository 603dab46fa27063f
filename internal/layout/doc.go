// Package layout holds the repository's structural rules, as tests that
// `make vet` runs: which layer may import which (nothing imports a package
// above it), that only bgtasks spells the names of a task directory's
// files, that only the watcher service (watchctl) starts a watcher's task
// and knows the link base, and that no package's variable is assigned by
// another package's code. It has no code of its own.
package layout
