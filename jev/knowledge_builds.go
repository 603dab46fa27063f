package jev

import "strings"

func classifyGo(args []string) knowledge {
	switch firstPositional(args, "-C") {
	case "test":
		return know(catTest, "")
	case "build", "vet", "install", "generate":
		return know(catBuild, "")
	case "get":
		return know(catPackage, "")
	case "mod":
		if p := positionals(args, ""); len(p) > 1 && inWords("download tidy vendor", p[1]) {
			return know(catPackage, "")
		}
		return know(catQuick, "")
	case "run":
		return knowledge{does: "runs a Go program"}
	case "tool":
		if hasFlag(args, "-http") {
			return know(catServer, "serves a web UI until stopped")
		}
		return knowledge{does: "runs a Go tool"}
	case "":
		return know(catQuick, "")
	}
	return know(catQuick, "")
}

func classifyCargo(args []string) knowledge {
	switch firstPositional(args, "--manifest-path -p --package --target --features -j --jobs --profile -Z --config") {
	case "build", "b", "check", "c", "clippy", "doc", "d", "rustc", "fix":
		return know(catBuild, "")
	case "test", "t", "nextest", "bench", "miri":
		return know(catTest, "")
	case "run", "r":
		return knowledge{does: "builds and runs a Rust program"}
	case "install", "fetch", "update", "add", "vendor", "publish":
		return know(catPackage, "")
	case "watch":
		return know(catFollow, "rebuilds on change until stopped")
	case "leptos", "tauri", "shuttle":
		if p := positionals(args, ""); len(p) > 1 && inWords("watch dev serve run", p[1]) {
			return know(catServer, "starts a dev server that runs until stopped")
		}
		return know(catBuild, "")
	}
	return know(catQuick, "")
}

// classifyMake judges make by its targets' conventional names.
func classifyMake(args []string) knowledge {
	var targets []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case inWords("-C -f -o -W -I --directory --file --makefile --old-file --what-if --include-dir", a):
			i++
		case (a == "-j" || a == "-l" || a == "--jobs" || a == "--load-average") && i+1 < len(args) && isNumber(args[i+1]):
			i++
		case strings.HasPrefix(a, "-"), isAssignment(a):
		default:
			targets = append(targets, a)
		}
	}
	k := know(catBuild, "")
	for _, t := range targets {
		switch tl := strings.ToLower(t); {
		case strings.Contains(tl, "watch"):
			return guessed(catFollow, "runs the make target `"+t+"`, by its name a watch mode that runs until stopped")
		case inWords("dev serve server start up run-dev devserver", tl):
			return guessed(catServer, "runs the make target `"+t+"`, by its name a dev server that runs until stopped")
		case inWords("test tests check unit e2e integration coverage", tl) || strings.HasPrefix(tl, "test"):
			k = know(catTest, "runs the make target `"+t+"`")
		case inWords("clean fmt format help lint", tl) && k.cat == catBuild && len(targets) == 1:
			k = know(catQuick, "")
		}
	}
	return k
}

// classifyJVMBuild reads Maven and Gradle goals and tasks.
func classifyJVMBuild(name string, args []string) knowledge {
	if hasShort(args, "t") && strings.HasPrefix(name, "gradle") || hasFlag(args, "--continuous") {
		return know(catFollow, "rebuilds on change until stopped (continuous)")
	}
	goals := positionals(args, "-f --file -P -D -pl --projects -T --threads -s --settings -p --project-dir -x --exclude-task")
	k := know(catBuild, "")
	for _, g := range goals {
		switch gl := strings.ToLower(g); {
		case inWords("spring-boot:run jetty:run tomcat7:run quarkus:dev liberty:dev bootrun run apprun quarkusdev", gl) || strings.HasSuffix(gl, ":bootrun"):
			return know(catServer, "runs the application until stopped")
		case inWords("test verify integration-test check", gl) || strings.HasSuffix(gl, ":test"):
			k = know(catTest, "")
		}
	}
	return k
}
