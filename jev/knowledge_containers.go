package jev

import "strings"

// classifyDocker reads docker, podman and nerdctl: attached runs, -it
// sessions, followed logs and the prompts of prune.
func classifyDocker(inv invocation, args []string) knowledge {
	rest := afterOptions(args, "-H --host --context -c --config -l --log-level")
	if len(rest) == 0 {
		return know(catQuick, "")
	}
	sub, sargs := rest[0], rest[1:]
	if sub == "container" || sub == "image" || sub == "buildx" || sub == "builder" {
		if len(sargs) > 0 && !strings.HasPrefix(sargs[0], "-") {
			if sargs[0] == "prune" {
				return prune(sargs)
			}
			sub, sargs = sargs[0], sargs[1:]
		}
	}
	switch sub {
	case "compose":
		return classifyCompose(inv, sargs)
	case "run", "create":
		return classifyDockerRun(inv, sub, sargs)
	case "exec":
		if hasShort(sargs, "d") || hasFlag(sargs, "--detach") {
			return know(catQuick, "")
		}
		if (hasShort(sargs, "i") || hasFlag(sargs, "--interactive")) && inv.stdinTTY {
			return know(catInteractive, "opens an interactive session in a container")
		}
		return knowledge{does: "runs a command in a container"}
	case "logs":
		if hasShort(sargs, "f") || hasFlag(sargs, "--follow") {
			return know(catFollow, "follows container logs until stopped")
		}
		return know(catQuick, "")
	case "attach":
		return know(catInteractive, "attaches to a container until detached")
	case "stats":
		if hasFlag(sargs, "--no-stream") {
			return know(catQuick, "")
		}
		return know(catFollow, "streams container stats until stopped")
	case "events":
		if hasFlag(sargs, "--until") {
			return know(catQuick, "")
		}
		return know(catFollow, "streams events until stopped")
	case "start":
		if hasShort(sargs, "ai") || hasFlag(sargs, "--attach --interactive") {
			return know(catServer, "runs the container attached until it stops")
		}
		return know(catQuick, "")
	case "build":
		return know(catBuild, "builds an image")
	case "pull", "push", "load", "save", "import", "export":
		return know(catPackage, "transfers an image")
	case "login":
		if hasFlag(sargs, "--password-stdin -p --password") {
			return know(catNetwork, "")
		}
		return know(catInteractive, "asks for credentials in the terminal")
	case "system", "volume", "network":
		if len(sargs) > 0 && sargs[0] == "prune" {
			return prune(sargs)
		}
	case "wait":
		return knowledge{does: "waits for a container to stop"}
	}
	return know(catQuick, "")
}

func prune(args []string) knowledge {
	if hasShort(args, "f") || hasFlag(args, "--force") {
		return know(catQuick, "")
	}
	return knowledge{cat: catQuick, prompt: "asks \"Are you sure you want to continue? [y/N]\" unless given -f"}
}

const dockerRunWithArg = "-a -c -e -h -l -m -p -u -v -w --add-host --attach --blkio-weight --cap-add --cap-drop --cgroup-parent --cidfile --cpu-period --cpu-quota --cpu-shares --cpus --cpuset-cpus --device --dns --entrypoint --env --env-file --expose --gpus --group-add --health-cmd --hostname --ip --label --label-file --link --log-driver --log-opt --mac-address --memory --memory-swap --mount --name --network --net --pid --platform --publish --pull --restart --runtime --security-opt --shm-size --stop-signal --stop-timeout --tmpfs --ulimit --user --userns --volume --volumes-from --workdir"

func classifyDockerRun(inv invocation, sub string, args []string) knowledge {
	if hasShort(args, "d") || hasFlag(args, "--detach") || sub == "create" {
		return know(catQuick, "starts a container in the background")
	}
	p := positionals(args, dockerRunWithArg)
	if (hasShort(args, "i") || hasFlag(args, "--interactive")) && inv.stdinTTY {
		if len(p) <= 1 || inWords("bash sh zsh ash fish python python3 node irb psql mysql redis-cli", commandName(p[1])) {
			return know(catInteractive, "opens an interactive session in a container")
		}
	}
	if hasShort(args, "pP") || hasFlag(args, "--publish --publish-all") {
		return guessed(catServer, "runs a container that publishes ports, by that a service that runs until stopped")
	}
	return knowledge{does: "runs a container in the foreground"}
}

func classifyCompose(inv invocation, args []string) knowledge {
	rest := afterOptions(args, "-f --file -p --project-name --profile --env-file --project-directory --ansi --parallel --progress")
	if len(rest) == 0 {
		return know(catQuick, "")
	}
	sub, sargs := rest[0], rest[1:]
	switch sub {
	case "up":
		if hasShort(sargs, "d") || hasFlag(sargs, "--detach --wait") {
			return know(catPackage, "starts services in the background")
		}
		return know(catServer, "runs the services in the foreground until stopped (no -d)")
	case "watch":
		return know(catFollow, "watches for changes until stopped")
	case "logs":
		if hasShort(sargs, "f") || hasFlag(sargs, "--follow") {
			return know(catFollow, "follows service logs until stopped")
		}
		return know(catQuick, "")
	case "build":
		return know(catBuild, "builds images")
	case "pull", "push":
		return know(catPackage, "transfers images")
	case "exec":
		if hasShort(sargs, "dT") || hasFlag(sargs, "--detach --no-TTY") || !inv.stdinTTY {
			return knowledge{does: "runs a command in a service"}
		}
		p := positionals(sargs, "-e --env -u --user -w --workdir --index")
		if len(p) <= 1 || inWords("bash sh zsh ash fish", commandName(p[1])) {
			return know(catInteractive, "opens a shell in a service")
		}
		return knowledge{does: "runs a command in a service"}
	case "run":
		return knowledge{does: "runs a one-off service container"}
	case "attach":
		return know(catInteractive, "attaches to a service until detached")
	}
	return know(catQuick, "")
}

// classifyKubectl knows kubectl's long-running subcommands: port-forward,
// proxy, logs -f, get -w, interactive exec.
func classifyKubectl(inv invocation, args []string) knowledge {
	p := positionals(args, "-n --namespace --context --cluster --kubeconfig -l --selector -o --output -c --container --since --tail --filename --address --pod-running-timeout --timeout --for")
	if len(p) == 0 {
		return know(catQuick, "")
	}
	switch p[0] {
	case "port-forward":
		return know(catServer, "forwards a port until stopped")
	case "proxy":
		return know(catServer, "serves the API proxy until stopped")
	case "logs":
		if hasShort(args, "f") || hasFlag(args, "--follow") {
			return know(catFollow, "follows pod logs until stopped")
		}
		return know(catNetwork, "")
	case "get", "describe", "top", "events":
		if hasFlag(args, "-w --watch --watch-only") {
			return know(catFollow, "watches resources until stopped")
		}
		return know(catNetwork, "")
	case "exec", "run", "debug", "attach":
		if (hasShort(args, "it") || hasFlag(args, "--stdin --tty")) && inv.stdinTTY {
			return know(catInteractive, "opens an interactive session in a pod")
		}
		if p[0] == "attach" {
			return know(catFollow, "attaches to a pod until stopped")
		}
		return knowledge{does: "runs a command in a pod"}
	case "edit":
		return know(catEditor, "opens the resource in an editor")
	case "rollout":
		if len(p) > 1 && p[1] == "status" {
			return know(catPackage, "waits for a rollout to finish")
		}
	case "wait":
		return know(catNetwork, "waits for a condition (default timeout 30s)")
	case "cp":
		return know(catPackage, "copies files to or from a pod")
	}
	return know(catNetwork, "")
}
