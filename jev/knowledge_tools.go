package jev

import "strings"

// classifyByName holds the rules for programs whose nature depends on their
// arguments. ok is false for programs it has no rule for.
func classifyByName(inv invocation, name string, args []string) (knowledge, bool) {
	switch name {
	case "sleep":
		d, ok := sleepDuration(args)
		switch {
		case len(args) == 0:
			return knowledge{}, false
		case !ok && indexOf(args, "infinity", "inf") >= 0:
			return know(catFollow, "sleeps forever"), true
		case !ok:
			return knowledge{does: "sleeps for a time hangdog cannot read"}, true
		}
		return knowledge{cat: catSleep, does: "sleeps for " + fmtDuration(d), sleep: d}, true
	case "tail":
		if hasShort(args, "fF") || hasFlag(args, "--follow --retry") {
			return know(catFollow, "follows a file until stopped"), true
		}
	case "journalctl":
		if hasShort(args, "f") || hasFlag(args, "--follow") {
			return know(catFollow, "follows the journal until stopped"), true
		}
		return pager(inv, hasFlag(args, "--no-pager"), "pages the journal"), true
	case "systemctl":
		switch firstPositional(args, "-H --host -M --machine -t --type -p --property -n --lines -o --output --state") {
		case "status", "show", "cat", "list-units", "list-unit-files", "list-timers", "list-sockets", "list-dependencies", "list-jobs", "":
			return pager(inv, hasFlag(args, "--no-pager"), "pages its output"), true
		}
		return knowledge{cat: catQuick, prompt: "may ask for a password (polkit) unless run as root"}, true
	case "dmesg":
		if hasShort(args, "wW") || hasFlag(args, "--follow --follow-new") {
			return know(catFollow, "follows the kernel log until stopped"), true
		}
		return know(catQuick, ""), true
	case "ping", "ping6":
		if hasShort(args, "cw") || hasFlag(args, "--count --deadline") {
			return know(catNetwork, "pings a set number of times"), true
		}
		return know(catFollow, "pings until stopped (no -c)"), true
	case "tcpdump", "tshark":
		if hasShort(args, "c") {
			return know(catNetwork, "captures a set number of packets"), true
		}
		return know(catFollow, "captures packets until stopped"), true
	case "vmstat", "iostat", "mpstat", "pidstat", "sar":
		if p := positionals(args, "-p -t -S -o -f -P -u -r"); len(p) == 1 {
			return know(catFollow, "reports every interval until stopped (no count)"), true
		}
		return know(catQuick, ""), true
	case "top":
		if hasShort(args, "b") {
			if hasShort(args, "n") {
				return know(catQuick, ""), true
			}
			return know(catFollow, "prints every few seconds until stopped (no -n)"), true
		}
		return know(catInteractive, "is a full-screen monitor that waits for a person"), true
	case "man", "info", "perldoc", "ri", "pydoc", "pydoc3":
		_, plain := inv.assigned("MANPAGER")
		if v, ok := inv.assigned("PAGER"); ok && (v == "cat" || v == "") {
			plain = true
		}
		return pager(inv, plain || hasFlag(args, "-P --pager"), "opens a manual in a pager"), true
	case "bat", "batcat":
		if hasShort(args, "P") || hasFlag(args, "--paging=never --no-paging") || indexOf(args, "-pp") >= 0 {
			return know(catQuick, ""), true
		}
		k := pager(inv, false, "pages output longer than the screen")
		k.guess = true
		return k, true
	case "emacs":
		if hasFlag(args, "--batch -batch --script") {
			return know(catQuick, ""), true
		}
		return know(catEditor, "is an editor that waits for a person"), true
	case "emacsclient":
		if hasShort(args, "n") || hasFlag(args, "--no-wait --eval") {
			return know(catQuick, ""), true
		}
		return know(catEditor, "waits for the file to be closed in the editor"), true
	case "code", "subl", "cursor", "zed":
		if hasShort(args, "w") || hasFlag(args, "--wait") {
			return know(catEditor, "waits for the file to be closed in the editor"), true
		}
		return know(catQuick, ""), true
	case "crontab":
		switch {
		case hasShort(args, "e"):
			return know(catEditor, "opens the crontab in an editor"), true
		case hasShort(args, "lr"):
			return know(catQuick, ""), true
		case len(positionals(args, "-u")) == 0 && inv.stdinTTY:
			return know(catReadsInput, "reads a crontab from the terminal (no file given)"), true
		}
		return know(catQuick, ""), true
	case "sudo", "doas":
		// Only reached when nothing follows the options: sudo -i, sudo -s, sudo -e, sudo -v.
		switch {
		case hasFlag(args, "-e --edit"):
			return know(catEditor, "opens a file in an editor (sudo -e)"), true
		case hasFlag(args, "-i -s --login --shell") || len(args) == 0:
			return know(catInteractive, "starts a root shell that waits for a person"), true
		}
		return knowledge{cat: catQuick, prompt: "sudo may ask for a password"}, true
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish":
		return classifyShell(inv, args), true
	case "git":
		return classifyGit(inv, args), true
	case "npm", "pnpm", "yarn", "bun":
		return classifyNodePM(inv, name, args), true
	case "deno":
		return classifyDeno(inv, args), true
	case "node", "nodejs":
		return classifyNode(inv, args), true
	case "python", "pypy":
		return classifyPython(inv, args), true
	case "docker", "podman", "nerdctl":
		return classifyDocker(inv, args), true
	case "docker-compose", "podman-compose":
		return classifyCompose(inv, args), true
	case "kubectl", "oc", "kubecolor":
		return classifyKubectl(inv, args), true
	case "go":
		return classifyGo(args), true
	case "cargo":
		return classifyCargo(args), true
	case "make", "gmake":
		return classifyMake(args), true
	case "ssh", "mosh", "autossh":
		return classifySSH(inv, args), true
	case "nc", "ncat", "netcat":
		switch {
		case hasShort(args, "l") || hasFlag(args, "--listen"):
			return know(catServer, "listens for connections until stopped"), true
		case hasShort(args, "z"):
			return know(catNetwork, "scans ports"), true
		}
		return know(catInteractive, "holds a connection open for a person to type into"), true
	case "socat":
		for _, a := range args {
			if strings.Contains(strings.ToUpper(a), "LISTEN") {
				return know(catServer, "listens for connections until stopped"), true
			}
		}
		return knowledge{}, true
	case "sftp":
		if hasShort(args, "b") {
			return know(catPackage, "copies files over the network"), true
		}
		return know(catInteractive, "opens an interactive file transfer session"), true
	case "tmux":
		sub := firstPositional(args, "-L -S -f -c")
		switch {
		case inWords("new new-session", sub) && hasShort(args, "d"):
			return know(catQuick, "starts a detached session"), true
		case sub == "" || inWords("new new-session attach attach-session a at", sub):
			return know(catInteractive, "opens a terminal multiplexer that waits for a person"), true
		}
		return know(catQuick, ""), true
	case "screen":
		if hasShort(args, "d") && hasShort(args, "m") || hasFlag(args, "-ls -list -X") {
			return know(catQuick, ""), true
		}
		return know(catInteractive, "opens a terminal multiplexer that waits for a person"), true
	case "psql", "pgcli":
		if hasFlag(args, "-c --command -f --file -l --list") || !inv.stdinTTY {
			return know(catNetwork, "runs a database query"), true
		}
		return know(catInteractive, "opens a database shell that waits for a person"), true
	case "mysql", "mariadb", "mycli":
		if hasFlag(args, "-e --execute") || hasShort(args, "e") || !inv.stdinTTY {
			return know(catNetwork, "runs a database query"), true
		}
		return know(catInteractive, "opens a database shell that waits for a person"), true
	case "sqlite3", "sqlite":
		if len(positionals(args, "-cmd -separator -newline -nullvalue")) >= 2 || !inv.stdinTTY {
			return know(catQuick, ""), true
		}
		return know(catInteractive, "opens a database shell that waits for a person"), true
	case "redis-cli", "valkey-cli":
		p := positionals(args, "-h -p -a -n -u -s --user --pass -r -i")
		switch {
		case len(p) > 0 && inWords("monitor subscribe psubscribe ssubscribe", strings.ToLower(p[0])):
			return know(catFollow, "streams events until stopped"), true
		case len(p) > 0 || hasFlag(args, "--scan --stat --bigkeys") || !inv.stdinTTY:
			return know(catNetwork, "runs a Redis command"), true
		}
		return know(catInteractive, "opens a Redis shell that waits for a person"), true
	case "mongo", "mongosh":
		if hasFlag(args, "--eval -f --file") || len(positionals(args, "--host --port -u -p --username --password --authenticationDatabase")) > 1 || !inv.stdinTTY {
			return know(catNetwork, "runs a database command"), true
		}
		return know(catInteractive, "opens a database shell that waits for a person"), true
	case "gdb", "cgdb":
		if hasFlag(args, "-batch --batch") {
			return know(catQuick, ""), true
		}
		return know(catInteractive, "opens a debugger that waits for a person"), true
	case "lldb":
		if hasFlag(args, "-b --batch") {
			return know(catQuick, ""), true
		}
		return know(catInteractive, "opens a debugger that waits for a person"), true
	case "ruby", "perl", "lua", "luajit", "php", "R", "julia", "scala", "octave", "ghc", "sbt", "lein", "clojure", "clj":
		return classifyInterpreter(inv, name, args), true
	case "jupyter":
		switch sub := firstPositional(args, ""); sub {
		case "notebook", "lab", "server":
			return know(catServer, "starts a notebook server that runs until stopped"), true
		case "console", "qtconsole":
			return know(catInteractive, "opens a console that waits for a person"), true
		case "nbconvert", "execute":
			return know(catBuild, "runs a notebook"), true
		}
		return know(catQuick, ""), true
	case "jupyter-lab", "jupyter-notebook":
		return know(catServer, "starts a notebook server that runs until stopped"), true
	case "flask":
		switch firstPositional(args, "-A --app -e --env-file") {
		case "run":
			return know(catServer, "starts a dev server that runs until stopped"), true
		case "shell":
			return know(catInteractive, "opens a shell that waits for a person"), true
		}
		return know(catQuick, ""), true
	case "fastapi":
		if inWords("dev run", firstPositional(args, "")) {
			return know(catServer, "starts a server that runs until stopped"), true
		}
	case "streamlit", "panel", "bokeh", "voila", "gradio", "chainlit", "marimo", "mkdocs", "hugo", "jekyll", "zola", "eleventy", "docusaurus", "mlflow":
		return classifySiteTool(name, args), true
	case "celery", "rq", "dramatiq", "huey_consumer", "arq", "temporal":
		for _, p := range positionals(args, "-A --app -l --loglevel -Q -c --concurrency") {
			if inWords("worker beat flower server start-dev", p) {
				return know(catServer, "starts a worker that runs until stopped"), true
			}
		}
		return know(catQuick, ""), true
	case "rails":
		switch firstPositional(args, "-e -p -b") {
		case "s", "server":
			return know(catServer, "starts a dev server that runs until stopped"), true
		case "c", "console", "dbconsole", "db":
			return know(catInteractive, "opens a console that waits for a person"), true
		case "test", "spec":
			return know(catTest, ""), true
		}
		return know(catQuick, ""), true
	case "rake":
		if t := firstPositional(args, "-f -C"); inWords("test spec", t) || strings.HasPrefix(t, "test:") || strings.HasPrefix(t, "spec") {
			return know(catTest, ""), true
		}
		return knowledge{does: "runs a rake task"}, true
	case "bundle":
		if inWords("install update i", firstPositional(args, "")) || len(args) == 0 {
			return know(catPackage, ""), true
		}
		return know(catQuick, ""), true
	case "foreman", "overmind", "hivemind", "honcho":
		if inWords("start s", firstPositional(args, "-f -d")) || len(args) == 0 {
			return know(catServer, "starts the Procfile's services, which run until stopped"), true
		}
		return know(catQuick, ""), true
	case "pm2":
		switch firstPositional(args, "") {
		case "logs":
			return know(catFollow, "follows logs until stopped"), true
		case "monit", "dash":
			return know(catInteractive, "is a dashboard that waits for a person"), true
		}
		return know(catQuick, "manages background processes and returns"), true
	case "pip", "pip3":
		return classifyPip(args), true
	case "uv":
		switch sub := firstPositional(args, ""); sub {
		case "pip":
			return classifyPip(args[indexOf(args, "pip")+1:]), true
		case "sync", "add", "lock", "install", "remove", "venv", "tool", "python":
			return know(catPackage, ""), true
		}
		return know(catQuick, ""), true
	case "poetry", "pipenv", "pdm", "hatch", "rye":
		switch firstPositional(args, "") {
		case "install", "add", "update", "lock", "sync", "remove", "":
			return know(catPackage, ""), true
		case "shell":
			return know(catInteractive, "opens a shell that waits for a person"), true
		}
		return know(catQuick, ""), true
	case "conda", "mamba", "micromamba":
		sub := firstPositional(args, "-n --name -p --prefix -c --channel -f --file")
		if inWords("install create update upgrade remove uninstall env", sub) {
			k := know(catPackage, "")
			if !hasShort(args, "y") && !hasFlag(args, "--yes") {
				k.prompt = "asks to proceed unless given -y"
			}
			return k, true
		}
		return know(catQuick, ""), true
	case "apt", "apt-get", "aptitude":
		sub := firstPositional(args, "-o -t -c --option --target-release")
		k := know(catQuick, "")
		switch {
		case inWords("upgrade dist-upgrade full-upgrade", sub):
			k = know(catLong, "upgrades every installed package")
		case inWords("install remove purge autoremove reinstall update build-dep source download", sub):
			k = know(catPackage, "")
		}
		if sub != "update" && k.cat != catQuick && !hasShort(args, "y") && !hasFlag(args, "--yes --assume-yes") {
			k.prompt = "asks \"Do you want to continue? [Y/n]\" unless given -y"
		}
		return k, true
	case "brew":
		switch firstPositional(args, "") {
		case "upgrade":
			return know(catLong, "upgrades every installed formula"), true
		case "install", "reinstall", "update", "bundle", "tap":
			return know(catPackage, ""), true
		}
		return know(catQuick, ""), true
	case "vite":
		switch firstPositional(args, "--config -c --mode -m --base --host --port") {
		case "", "dev", "serve", "preview":
			return know(catServer, "starts a dev server that runs until stopped"), true
		case "build", "optimize":
			return know(catBuild, ""), true
		}
		return knowledge{}, true
	case "next", "nuxt", "nuxi", "astro", "remix", "gatsby", "ng", "ember", "parcel", "expo", "react-native", "react-scripts", "storybook", "wrangler", "netlify", "vercel", "firebase", "turbo", "nx", "vitest", "jest", "webpack", "webpack-cli", "tsc", "rollup", "esbuild", "playwright", "cypress", "karma", "tsx", "ts-node", "supabase", "localstack", "ollama", "vllm":
		return classifyJSTool(name, args), true
	case "mvn", "mvnw", "gradle", "gradlew":
		return classifyJVMBuild(name, args), true
	case "dotnet":
		switch firstPositional(args, "") {
		case "watch":
			return know(catFollow, "rebuilds on change until stopped"), true
		case "test":
			return know(catTest, ""), true
		case "build", "publish", "pack", "msbuild":
			return know(catBuild, ""), true
		case "restore", "add", "tool":
			return know(catPackage, ""), true
		case "run":
			return knowledge{does: "runs a .NET program"}, true
		}
		return know(catQuick, ""), true
	case "mix":
		switch firstPositional(args, "") {
		case "phx.server":
			return know(catServer, "starts a Phoenix server that runs until stopped"), true
		case "test":
			return know(catTest, ""), true
		case "compile":
			return know(catBuild, ""), true
		case "deps.get", "deps.update":
			return know(catPackage, ""), true
		}
		return knowledge{does: "runs a mix task"}, true
	case "swift":
		switch firstPositional(args, "") {
		case "build":
			return know(catBuild, ""), true
		case "test":
			return know(catTest, ""), true
		case "":
			return know(catInteractive, "opens a REPL that waits for a person"), true
		}
		return knowledge{}, true
	case "bazel", "bazelisk", "buck", "buck2", "pants":
		switch firstPositional(args, "") {
		case "build", "test", "coverage":
			return know(catLong, "builds with a large build system"), true
		case "run":
			return knowledge{does: "builds and runs a target"}, true
		}
		return know(catQuick, ""), true
	case "cmake":
		if hasFlag(args, "--build --install") {
			return know(catBuild, ""), true
		}
		return know(catQuick, "configures a build"), true
	case "meson":
		switch firstPositional(args, "") {
		case "compile":
			return know(catBuild, ""), true
		case "test":
			return know(catTest, ""), true
		}
		return know(catQuick, ""), true
	case "terraform", "tofu", "terragrunt":
		sub := firstPositional(args, "-chdir")
		switch sub {
		case "apply", "destroy":
			k := know(catLong, "changes infrastructure")
			if !hasFlag(args, "-auto-approve --auto-approve") {
				k.prompt = "asks \"Enter a value:\" to approve unless given -auto-approve"
			}
			return k, true
		case "init", "plan", "refresh", "import":
			return know(catPackage, "talks to the providers"), true
		case "console":
			return know(catInteractive, "opens a console that waits for a person"), true
		}
		return know(catQuick, ""), true
	case "ansible-playbook":
		return know(catLong, "runs a playbook"), true
	case "helm":
		switch firstPositional(args, "-n --namespace --kube-context") {
		case "install", "upgrade", "uninstall", "dependency", "repo", "pull":
			return know(catPackage, "talks to the cluster"), true
		}
		return know(catNetwork, ""), true
	case "minikube", "kind", "k3d":
		switch firstPositional(args, "") {
		case "tunnel", "dashboard", "mount":
			return know(catServer, "runs until stopped"), true
		case "start", "create", "delete":
			return know(catPackage, "creates or removes a local cluster"), true
		}
		return know(catQuick, ""), true
	case "vagrant":
		switch firstPositional(args, "") {
		case "up", "provision", "reload":
			return know(catLong, "starts a virtual machine"), true
		case "ssh":
			return know(catInteractive, "opens a shell in the virtual machine"), true
		}
		return know(catQuick, ""), true
	case "packer":
		return know(catLong, "builds a machine image"), true
	case "aws":
		if p := positionals(args, "--profile --region --output --query --endpoint-url"); len(p) >= 2 && p[0] == "logs" && p[1] == "tail" && hasFlag(args, "--follow") {
			return know(catFollow, "follows logs until stopped"), true
		}
		if len(args) > 0 && (args[0] == "configure" || indexOf(args, "start-session") >= 0) {
			return know(catInteractive, "asks for input"), true
		}
		v, set := inv.assigned("AWS_PAGER")
		k := pager(inv, hasFlag(args, "--no-cli-pager") || (set && v == ""), "pages its output")
		if k.cat == catPager {
			k.guess = true
		} else {
			k = know(catNetwork, "")
		}
		return k, true
	case "gh":
		p := positionals(args, "-R --repo")
		switch {
		case len(p) >= 2 && p[0] == "auth" && p[1] == "login":
			return know(catInteractive, "asks questions in the terminal"), true
		case len(p) >= 2 && p[0] == "pr" && p[1] == "create" && !hasFlag(args, "--fill -f --title -t --fill-first --fill-verbose"):
			return know(catInteractive, "asks for a title and body in the terminal (no --title or --fill)"), true
		case len(p) >= 2 && p[0] == "run" && p[1] == "watch":
			return know(catPackage, "waits for a CI run to finish"), true
		}
		return know(catNetwork, ""), true
	case "ssh-keygen":
		if hasShort(args, "lFRy") || (hasShort(args, "f") && hasShort(args, "N")) {
			return know(catQuick, ""), true
		}
		return know(catInteractive, "asks where to save the key and for a passphrase"), true
	case "gpg", "gpg2":
		if hasFlag(args, "--gen-key --full-generate-key --full-gen-key --edit-key --card-edit --generate-key") {
			return know(catInteractive, "asks questions in the terminal"), true
		}
		return know(catQuick, ""), true
	case "read", "select":
		if inv.stdinTTY {
			return know(catReadsInput, "reads a line from the terminal"), true
		}
		return know(catQuick, ""), true
	case "kubens", "kubectx":
		return know(catQuick, ""), true
	case "xargs":
		if inv.stdinTTY && !hasShort(args, "a") && !hasFlag(args, "--arg-file") {
			return know(catReadsInput, "reads arguments from the terminal until end of input"), true
		}
		return knowledge{does: "runs a command for each input line"}, true
	}
	return knowledge{}, false
}
