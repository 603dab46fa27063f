package jev

import (
	"strings"

	"github.com/hangdog/hangdog/internal/termtext"
)

// nodeScriptGlobals are npm/pnpm/yarn/bun options that take a value.
const nodeScriptGlobals = "--prefix -C --cwd --dir -w --workspace --filter -F --loglevel --registry --cache --userconfig"

// classifyNodePM reads npm, pnpm, yarn and bun command lines; pnpm, yarn and
// bun also run package scripts by bare name (`pnpm dev`).
func classifyNodePM(inv invocation, pm string, args []string) knowledge {
	p := positionals(args, nodeScriptGlobals)
	sub := ""
	if len(p) > 0 {
		sub = p[0]
	}
	switch {
	case sub == "" && pm == "yarn":
		return know(catPackage, "installs packages")
	case sub == "" && pm == "bun":
		return know(catQuick, "")
	case inWords("install i in ins add a global ci clean-install ic install-clean update up upgrade uninstall un remove rm r unlink link ln rebuild rb prune dedupe ddp fetch import pm", sub):
		return know(catPackage, "installs packages")
	case inWords("test tst t", sub):
		if pm == "bun" {
			return know(catTest, "")
		}
		return scriptKnowledge(pm, "test")
	case sub == "start" || sub == "restart":
		return guessed(catServer, "starts the app, by convention a server that runs until stopped")
	case inWords("run run-script rum urn", sub):
		if len(p) < 2 {
			return know(catQuick, "lists the package scripts")
		}
		if pm == "bun" && isScriptPath(p[1]) {
			return knowledge{does: "runs " + termtext.Clip(p[1], 40)}
		}
		return scriptKnowledge(pm, p[1])
	case inWords("init create innit", sub):
		if hasShort(args, "y") || hasFlag(args, "--yes") {
			return know(catQuick, "")
		}
		return knowledge{cat: catInteractive, does: "asks questions in the terminal (no -y)"}
	case inWords("login adduser add-user", sub):
		return know(catInteractive, "asks for credentials in the terminal")
	case inWords("publish pack", sub):
		return know(catNetwork, "")
	case inWords("audit outdated ls list ll la view info show v version config whoami bin root prefix cache doctor explain why fund search help set get stop", sub):
		return know(catQuick, "")
	case pm == "bun" && sub == "repl":
		return know(catInteractive, "opens a REPL that waits for a person")
	case pm == "bun" && sub == "build":
		return know(catBuild, "")
	case pm == "npm":
		return knowledge{does: "runs an npm command"}
	case pm == "bun" && isScriptPath(sub):
		return knowledge{does: "runs " + termtext.Clip(sub, 40)}
	}
	// pnpm, yarn and bun run package scripts by name: `pnpm dev`.
	return scriptKnowledge(pm, sub)
}

// scriptKnowledge guesses what a package script does from its name — the
// conventions every JavaScript template follows.
func scriptKnowledge(pm, script string) knowledge {
	s := strings.ToLower(script)
	words := strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == '-' || r == '_' || r == '.' })
	has := func(list string) bool {
		for _, w := range words {
			if inWords(list, w) {
				return true
			}
		}
		return false
	}
	label := "`" + script + "`"
	switch {
	case has("watch"):
		return guessed(catFollow, "runs the package script "+label+", by its name a watch mode that runs until stopped")
	case has("dev develop start serve server preview storybook"):
		return guessed(catServer, "runs the package script "+label+", by its name a dev server that runs until stopped")
	case has("test tests spec e2e jest vitest cypress playwright coverage"):
		return guessed(catTest, "runs the package script "+label+", by its name tests")
	case has("build compile bundle dist export generate typecheck tsc"):
		return guessed(catBuild, "runs the package script "+label+", by its name a build")
	case has("lint format fmt prettier eslint check clean"):
		return guessed(catBuild, "runs the package script "+label+", by its name a check")
	case has("install setup bootstrap postinstall prepare"):
		return guessed(catPackage, "runs the package script "+label+", by its name an install")
	case has("deploy release publish"):
		return guessed(catPackage, "runs the package script "+label+", by its name a deploy")
	}
	return knowledge{does: "runs the package script " + label}
}

// classifyDeno reads deno's subcommands.
func classifyDeno(inv invocation, args []string) knowledge {
	switch sub := firstPositional(args, ""); sub {
	case "task":
		if p := positionals(args, ""); len(p) > 1 {
			return scriptKnowledge("deno task", p[1])
		}
		return know(catQuick, "")
	case "test", "bench":
		return know(catTest, "")
	case "serve":
		return know(catServer, "starts a server that runs until stopped")
	case "fmt", "lint", "check", "info":
		return know(catQuick, "")
	case "compile", "bundle":
		return know(catBuild, "")
	case "install", "add", "cache":
		return know(catPackage, "")
	case "repl", "":
		if inv.stdinTTY {
			return know(catInteractive, "opens a REPL that waits for a person")
		}
	}
	return knowledge{does: "runs a Deno program"}
}

// classifyNode tells node's REPL (no script, input from the terminal) from
// a script run.
func classifyNode(inv invocation, args []string) knowledge {
	if hasFlag(args, "--test") {
		return know(catTest, "")
	}
	if hasFlag(args, "-e --eval -p --print -c --check -v --version") {
		return know(catQuick, "")
	}
	if hasFlag(args, "-i --interactive") {
		return know(catInteractive, "opens a REPL that waits for a person")
	}
	p := positionals(args, "-r --require --import --loader --experimental-loader --env-file --inspect-port --max-old-space-size")
	if len(p) == 0 {
		if inv.stdinTTY {
			return know(catInteractive, "opens a REPL that waits for a person")
		}
		return knowledge{does: "runs a script from its input"}
	}
	return knowledge{does: "runs " + termtext.Clip(p[0], 40)}
}

// classifyJSTool knows the JavaScript frameworks' and tools' server, build,
// test and watch subcommands, including the ones that watch by default.
func classifyJSTool(name string, args []string) knowledge {
	sub := firstPositional(args, "-c --config --mode -p --port --host -H --hostname --project --cwd --root")
	server := know(catServer, "starts a dev server that runs until stopped")
	switch name {
	case "next", "nuxt", "nuxi", "astro", "remix", "gatsby":
		switch sub {
		case "dev", "develop", "start", "preview", "serve", "":
			if sub == "" && name != "astro" && name != "next" {
				break
			}
			return server
		case "build", "export", "generate", "lint", "check":
			return know(catBuild, "")
		}
	case "ng":
		switch sub {
		case "serve", "s":
			return server
		case "build", "b", "lint":
			return know(catBuild, "")
		case "test", "t":
			if hasFlag(args, "--watch=false --no-watch") {
				return know(catTest, "")
			}
			return guessed(catFollow, "runs tests in watch mode by default (add --watch=false)")
		case "e2e":
			return know(catTest, "")
		}
	case "ember":
		switch sub {
		case "serve", "s", "server":
			return server
		case "build", "b":
			return know(catBuild, "")
		case "test", "t":
			if hasFlag(args, "--server -s") {
				return know(catFollow, "reruns tests on change until stopped")
			}
			return know(catTest, "")
		}
	case "parcel":
		switch sub {
		case "build":
			return know(catBuild, "")
		case "watch":
			return know(catFollow, "rebuilds on change until stopped")
		}
		return server
	case "expo", "react-native":
		if inWords("start run:ios run:android", sub) {
			return server
		}
	case "react-scripts":
		switch sub {
		case "start":
			return server
		case "build":
			return know(catBuild, "")
		case "test":
			return guessed(catFollow, "runs tests in watch mode in a terminal (set CI=true)")
		}
	case "storybook":
		if sub == "dev" {
			return server
		}
		if sub == "build" {
			return know(catBuild, "")
		}
	case "wrangler", "netlify", "vercel":
		if sub == "dev" {
			return server
		}
		if sub == "login" {
			return know(catInteractive, "waits for a browser login")
		}
		return know(catNetwork, "")
	case "firebase":
		if sub == "emulators:start" || sub == "serve" {
			return server
		}
		return know(catNetwork, "")
	case "supabase", "localstack":
		if sub == "start" {
			return know(catPackage, "starts local services")
		}
		return know(catQuick, "")
	case "ollama":
		switch sub {
		case "serve":
			return server
		case "run":
			if len(positionals(args, "")) <= 2 {
				return know(catInteractive, "opens a chat that waits for a person")
			}
			return knowledge{does: "runs a model"}
		case "pull", "push":
			return know(catPackage, "downloads a model")
		}
		return know(catQuick, "")
	case "vllm":
		if sub == "serve" {
			return server
		}
	case "turbo", "nx":
		p := positionals(args, "--filter -F --concurrency --output-logs --configuration -c")
		target := sub
		if len(p) > 1 && (sub == "run" || sub == "run-many") {
			target = p[1]
		}
		if name == "nx" && len(p) > 2 && sub == "run" {
			target = p[2]
		}
		for _, a := range args {
			if t, ok := strings.CutPrefix(a, "--target="); ok {
				target = t
			}
		}
		if target == "" {
			return know(catQuick, "")
		}
		k := scriptKnowledge(name, target)
		if k.cat == catUnknown {
			k.cat = catBuild
			k.guess = true
		}
		return k
	case "vitest":
		switch {
		case sub == "run" || sub == "bench" || hasFlag(args, "--run"):
			return know(catTest, "")
		case sub == "watch" || sub == "dev" || sub == "":
			return guessed(catFollow, "starts in watch mode in a terminal (use `vitest run`)")
		}
		return know(catTest, "")
	case "jest":
		return know(catTest, "")
	case "karma":
		if hasFlag(args, "--single-run") {
			return know(catTest, "")
		}
		return guessed(catFollow, "watches and reruns tests until stopped (no --single-run)")
	case "playwright", "cypress":
		switch sub {
		case "test", "run":
			if hasFlag(args, "--ui --headed-debug") {
				return know(catInteractive, "opens an interactive test UI")
			}
			return know(catTest, "")
		case "open", "codegen", "show-report", "show-trace", "ui":
			return know(catInteractive, "opens a window that waits for a person")
		case "install":
			return know(catPackage, "")
		}
		return know(catTest, "")
	case "webpack", "webpack-cli":
		if inWords("serve server s", sub) {
			return server
		}
		if hasShort(args, "w") {
			return know(catFollow, "rebuilds on change until stopped")
		}
		return know(catBuild, "")
	case "tsc", "rollup":
		if hasShort(args, "w") {
			return know(catFollow, "rebuilds on change until stopped")
		}
		return know(catBuild, "")
	case "esbuild":
		if hasFlag(args, "--serve") {
			return server
		}
		return know(catBuild, "")
	case "tsx", "ts-node":
		if sub == "watch" {
			return know(catFollow, "reruns on change until stopped")
		}
		if sub == "" {
			return know(catInteractive, "opens a REPL that waits for a person")
		}
		return knowledge{does: "runs " + termtext.Clip(sub, 40)}
	}
	return knowledge{does: "runs " + name}
}
