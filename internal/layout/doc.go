// Package layout holds the repository's structural rules, as tests that
// `make vet` runs: which layer may import which (nothing imports a package
// above it), and that only bgtasks spells the names of a task directory's
// files. It has no code of its own.
package layout
