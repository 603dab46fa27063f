package shell

// List is a sequence of pipelines joined by `;`, `&&`, `||`, `&` or newlines.
type List struct {
	Pipelines []Pipeline
}

// Pipeline is one or more commands joined by `|` or `|&`.
type Pipeline struct {
	Commands []Command
	// Op joins this pipeline to the next: ";", "&&", "||", "&", or "" for the
	// last one. "&" means this pipeline runs in the background.
	Op      string
	Negated bool // `! pipeline`
}

// Command is one element of a pipeline: a simple command, a loop, or a group
// of commands (subshell, brace group, if, case — every branch, in order). A
// function definition is a Command with all three nil: its body does not run
// where it is written.
type Command struct {
	Simple *Simple
	Loop   *Loop
	Group  *List

	StdinRedirected  bool // `< file`, a here-document or here-string
	StdoutRedirected bool // `> file`, `>> file`, `&> file`
}

// Simple is a simple command: assignments, then words.
type Simple struct {
	Assigns []string // NAME=value words before the command name
	Args    []string // the words, quotes removed, nothing expanded
}

// Loop is a for, while or until loop.
type Loop struct {
	Kind string // "for", "while" or "until"

	// for NAME in ITEMS: the words after `in`, unexpanded. ItemsGiven is
	// false for `for NAME; do` (which iterates over "$@").
	Items      []string
	ItemsGiven bool
	// for ((init; cond; step)): the text between the double parentheses.
	Arith string

	Cond List // while/until: the condition
	Body List
}

// Background reports whether the pipeline runs in the background (`&`).
func (p Pipeline) Background() bool { return p.Op == "&" }
