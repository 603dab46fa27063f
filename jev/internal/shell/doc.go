// Package shell reads the command lines hangdog supervises — the strings an
// agent hands to `bash -c` — into a small tree of lists, pipelines, loops and
// simple commands, well enough to reason about what they will do: which
// programs run, under which wrappers, how often, and whether their input and
// output are the terminal.
//
// It is lenient on purpose. A command line is evidence, not a program to run,
// so Parse never fails: what it cannot understand becomes plain words, and
// nothing is expanded (variables, globs and substitutions stay as written).
package shell
