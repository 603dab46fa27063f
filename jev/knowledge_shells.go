package jev

import (
	"strings"

	"github.com/hangdog/hangdog/internal/termtext"
)

// classifyShell judges a shell given no -c: it runs a script, or reads
// commands from the terminal.
func classifyShell(inv invocation, args []string) knowledge {
	if hasFlag(args, "-i") {
		return know(catInteractive, "starts an interactive shell")
	}
	if p := positionals(args, "-o +o -O +O --rcfile --init-file"); len(p) > 0 {
		return knowledge{does: "runs the script " + termtext.Clip(p[0], 40)}
	}
	if inv.stdinTTY {
		return know(catInteractive, "starts a shell that reads commands from the terminal")
	}
	return knowledge{does: "runs commands from its input"}
}

// classifySSH tells a tunnel (-N) from a remote command and from a login
// shell that waits for a person.
func classifySSH(inv invocation, args []string) knowledge {
	p := positionals(args, "-B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w")
	switch {
	case hasShort(args, "N") || hasShort(args, "f") && len(p) <= 1 && hasShort(args, "LRD"):
		return know(catServer, "holds a tunnel open until stopped (-N)")
	case len(p) <= 1:
		if !inv.stdinTTY && !hasShort(args, "t") {
			return know(catNetwork, "runs commands from its input on a remote host")
		}
		k := know(catInteractive, "opens a remote shell that waits for a person")
		k.prompt = "may ask for a password or to trust the host key"
		return k
	}
	k := knowledge{cat: catNetwork, does: "runs a command on a remote host"}
	k.prompt = "may ask for a password or to trust the host key"
	return k
}

// classifyInterpreter judges the other language runtimes: a REPL with no
// script, a quick run with -e, and their servers (php -S).
func classifyInterpreter(inv invocation, name string, args []string) knowledge {
	switch name {
	case "php":
		if hasFlag(args, "-S") {
			return know(catServer, "serves a directory until stopped (php -S)")
		}
		if hasFlag(args, "-a") {
			return know(catInteractive, "opens a REPL that waits for a person")
		}
		if p := positionals(args, "-c -d -f -t -z"); len(p) > 1 && commandName(p[0]) == "artisan" {
			switch p[1] {
			case "serve", "octane:start", "horizon", "queue:work", "queue:listen", "reverb:start":
				return know(catServer, "starts a server that runs until stopped")
			case "tinker":
				return know(catInteractive, "opens a REPL that waits for a person")
			case "test":
				return know(catTest, "")
			}
			return know(catQuick, "")
		}
	case "sbt":
		for _, a := range args {
			if strings.HasPrefix(a, "~") {
				return know(catFollow, "reruns on change until stopped (~)")
			}
		}
		p := positionals(args, "")
		switch {
		case len(p) == 0:
			return know(catInteractive, "opens the sbt shell, which waits for a person")
		case indexOf(p, "test") >= 0:
			return know(catTest, "")
		case indexOf(p, "run") >= 0:
			return knowledge{does: "runs a Scala program"}
		}
		return know(catBuild, "")
	case "lein":
		if firstPositional(args, "") == "repl" {
			return know(catInteractive, "opens a REPL that waits for a person")
		}
		if firstPositional(args, "") == "test" {
			return know(catTest, "")
		}
		return knowledge{does: "runs a Leiningen task"}
	}
	if hasFlag(args, "-e -E --eval -r --version -v -V -x --execute") || hasShort(args, "e") {
		return know(catQuick, "")
	}
	p := positionals(args, "-I -r -M -m -d -c -f -t -x")
	if len(p) == 0 {
		if !inv.stdinTTY {
			return knowledge{does: "runs a program from its input"}
		}
		if name == "ruby" || name == "perl" {
			return readsInput(inv, "reads a program from the terminal (no script given)")
		}
		return know(catInteractive, "opens a REPL that waits for a person")
	}
	return knowledge{does: "runs " + termtext.Clip(p[0], 40)}
}
