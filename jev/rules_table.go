package jev

import "strings"

// Knowledge shared by several rules.
var (
	dbShell   = know(catInteractive, "opens a database shell that waits for a person")
	debugger  = know(catInteractive, "opens a debugger that waits for a person")
	devServer = know(catServer, "starts a dev server that runs until stopped")
	console   = know(catInteractive, "opens a console that waits for a person")
	subShell  = know(catInteractive, "opens a shell that waits for a person")
	quick     = know(catQuick, "")
	mux       = know(catInteractive, "opens a terminal multiplexer that waits for a person")
)

// positionalCount: how many positional arguments there are (options in
// withArg take a value) compares with n by cmp ("==", ">=", ">").
func positionalCount(withArg, cmp string, n int) argTest {
	return func(_ invocation, args []string) bool {
		c := len(positionals(args, withArg))
		switch cmp {
		case "==":
			return c == n
		case ">=":
			return c >= n
		}
		return c > n
	}
}

// anyPositional: some positional argument is one of words.
func anyPositional(withArg, words string) argTest {
	return func(_ invocation, args []string) bool {
		for _, p := range positionals(args, withArg) {
			if inWords(words, p) {
				return true
			}
		}
		return false
	}
}

func arg(words ...string) argTest {
	return func(_ invocation, args []string) bool { return indexOf(args, words...) >= 0 }
}

// programRules is the table. Order does not matter: each program has one rule.
func programRules() []programRule {
	return []programRule{
		{programs: "sleep", family: classifySleep, bound: sleepDuration,
			examples: []ruleExample{{"sleep 20", catSleep}, {"sleep infinity", catFollow}}},
		{programs: "tail", cases: []ruleCase{when(either(short("fF"), flag("--follow --retry")), know(catFollow, "follows a file until stopped"))},
			fallThrough: true, examples: []ruleExample{{"tail -f app.log", catFollow}}},
		{programs: "journalctl", cases: []ruleCase{
			when(either(short("f"), flag("--follow")), know(catFollow, "follows the journal until stopped")),
			whenBuild(nil, pagerOff(flag("--no-pager"), "pages the journal"))},
			examples: []ruleExample{{"journalctl -f", catFollow}, {"journalctl -u nginx", catPager}, {"journalctl --no-pager", catQuick}}},
		{programs: "systemctl", cases: []ruleCase{
			whenBuild(either(noSub(systemctlArgs), sub(systemctlArgs, "status show cat list-units list-unit-files list-timers list-sockets list-dependencies list-jobs")),
				pagerOff(flag("--no-pager"), "pages its output"))},
			otherwise: knowledge{cat: catQuick, prompt: "may ask for a password (polkit) unless run as root"},
			examples:  []ruleExample{{"systemctl status nginx", catPager}, {"systemctl restart nginx", catQuick}}},
		{programs: "dmesg", cases: []ruleCase{when(either(short("wW"), flag("--follow --follow-new")), know(catFollow, "follows the kernel log until stopped"))},
			otherwise: quick, examples: []ruleExample{{"dmesg -w", catFollow}, {"dmesg", catQuick}}},
		{programs: "ping ping6", cases: []ruleCase{when(either(short("cw"), flag("--count --deadline")), know(catNetwork, "pings a set number of times"))},
			otherwise: know(catFollow, "pings until stopped (no -c)"), bound: boundPing,
			examples: []ruleExample{{"ping -c 3 host", catNetwork}, {"ping host", catFollow}}},
		{programs: "tcpdump tshark", cases: []ruleCase{when(short("c"), know(catNetwork, "captures a set number of packets"))},
			otherwise: know(catFollow, "captures packets until stopped"), examples: []ruleExample{{"tcpdump -c 10", catNetwork}, {"tcpdump -i eth0", catFollow}}},
		{programs: "vmstat iostat mpstat pidstat sar", cases: []ruleCase{when(positionalCount("-p -t -S -o -f -P -u -r", "==", 1), know(catFollow, "reports every interval until stopped (no count)"))},
			otherwise: quick, examples: []ruleExample{{"vmstat 1", catFollow}, {"vmstat 1 5", catQuick}}},
		{programs: "top", cases: []ruleCase{
			when(both(short("b"), short("n")), quick),
			when(short("b"), know(catFollow, "prints every few seconds until stopped (no -n)"))},
			otherwise: know(catInteractive, "is a full-screen monitor that waits for a person"),
			examples:  []ruleExample{{"top -b -n 1", catQuick}, {"top -b", catFollow}, {"top", catInteractive}}},
		{programs: "man info perldoc ri pydoc pydoc3", cases: []ruleCase{whenBuild(nil, manPager)},
			examples: []ruleExample{{"man tar", catPager}, {"MANPAGER=cat man tar", catQuick}}},
		{programs: "bat batcat", cases: []ruleCase{
			when(either(short("P"), flag("--paging=never --no-paging"), arg("-pp")), quick),
			whenBuild(nil, func(inv invocation, _ []string) knowledge {
				k := pager(inv, false, "pages output longer than the screen")
				k.guess = true
				return k
			})},
			examples: []ruleExample{{"bat -P main.go", catQuick}, {"bat main.go", catPager}}},
		{programs: "emacs", cases: []ruleCase{when(flag("--batch -batch --script"), quick)},
			otherwise: know(catEditor, "is an editor that waits for a person"), examples: []ruleExample{{"emacs --batch -l x.el", catQuick}, {"emacs notes.org", catEditor}}},
		{programs: "emacsclient", cases: []ruleCase{when(either(short("n"), flag("--no-wait --eval")), quick)},
			otherwise: know(catEditor, "waits for the file to be closed in the editor"), examples: []ruleExample{{"emacsclient -n f", catQuick}, {"emacsclient f", catEditor}}},
		{programs: "code subl cursor zed", cases: []ruleCase{when(either(short("w"), flag("--wait")), know(catEditor, "waits for the file to be closed in the editor"))},
			otherwise: quick, examples: []ruleExample{{"code --wait f", catEditor}, {"code .", catQuick}}},
		{programs: "crontab", cases: []ruleCase{
			when(short("e"), know(catEditor, "opens the crontab in an editor")),
			when(short("lr"), quick),
			when(both(positionalCount("-u", "==", 0), stdinTTY()), know(catReadsInput, "reads a crontab from the terminal (no file given)"))},
			otherwise: quick, examples: []ruleExample{{"crontab -e", catEditor}, {"crontab -l", catQuick}, {"crontab", catReadsInput}, {"crontab jobs.txt", catQuick}}},
		{programs: "sudo doas", cases: []ruleCase{ // reached only when nothing follows the options
			when(flag("-e --edit"), know(catEditor, "opens a file in an editor (sudo -e)")),
			when(either(flag("-i -s --login --shell"), noArgs()), know(catInteractive, "starts a root shell that waits for a person"))},
			otherwise: knowledge{cat: catQuick, prompt: "sudo may ask for a password"},
			examples:  []ruleExample{{"sudo -e /etc/hosts", catEditor}, {"sudo -i", catInteractive}, {"sudo -v", catQuick}}},
		{programs: "bash sh zsh dash ksh mksh ash fish", family: family(classifyShell), bound: boundShell,
			examples: []ruleExample{{"bash", catInteractive}}},
		{programs: "git", family: family(classifyGit), examples: []ruleExample{{"git log", catPager}, {"git status", catQuick}}},
		{programs: "npm pnpm yarn bun", family: familyNamed(classifyNodePM), examples: []ruleExample{{"npm install", catPackage}}},
		{programs: "deno", family: family(classifyDeno), examples: []ruleExample{{"deno test", catTest}}},
		{programs: "node nodejs", family: family(classifyNode), examples: []ruleExample{{"node", catInteractive}}},
		{programs: "python pypy", family: family(classifyPython), examples: []ruleExample{{"python -m http.server", catServer}}},
		{programs: "docker podman nerdctl", family: family(classifyDocker), bound: boundExec, examples: []ruleExample{{"docker build .", catBuild}}},
		{programs: "docker-compose podman-compose", family: family(classifyCompose), examples: []ruleExample{{"docker-compose up", catServer}}},
		{programs: "kubectl oc kubecolor", family: family(classifyKubectl), bound: boundExec, examples: []ruleExample{{"kubectl logs -f pod", catFollow}}},
		{programs: "go", family: familyArgs(classifyGo), examples: []ruleExample{{"go test ./...", catTest}}},
		{programs: "cargo", family: familyArgs(classifyCargo), examples: []ruleExample{{"cargo build", catBuild}}},
		{programs: "make gmake", family: familyArgs(classifyMake), examples: []ruleExample{{"make", catBuild}}},
		{programs: "ssh mosh autossh", family: family(classifySSH), bound: boundSSH, examples: []ruleExample{{"ssh host", catInteractive}}},
		{programs: "nc ncat netcat", cases: []ruleCase{
			when(either(short("l"), flag("--listen")), know(catServer, "listens for connections until stopped")),
			when(short("z"), know(catNetwork, "scans ports"))},
			otherwise: know(catInteractive, "holds a connection open for a person to type into"), bound: boundNC,
			examples: []ruleExample{{"nc -l 8080", catServer}, {"nc -z host 22", catNetwork}, {"nc host 80", catInteractive}}},
		{programs: "socat", cases: []ruleCase{when(func(_ invocation, args []string) bool {
			for _, a := range args {
				if strings.Contains(strings.ToUpper(a), "LISTEN") {
					return true
				}
			}
			return false
		}, know(catServer, "listens for connections until stopped"))},
			examples: []ruleExample{{"socat TCP-LISTEN:80 -", catServer}, {"socat - TCP:host:80", catUnknown}}},
		{programs: "sftp", cases: []ruleCase{when(short("b"), know(catPackage, "copies files over the network"))},
			otherwise: know(catInteractive, "opens an interactive file transfer session"), examples: []ruleExample{{"sftp -b batch host", catPackage}, {"sftp host", catInteractive}}},
		{programs: "tmux", cases: []ruleCase{
			when(both(sub("-L -S -f -c", "new new-session"), short("d")), know(catQuick, "starts a detached session")),
			when(either(noSub("-L -S -f -c"), sub("-L -S -f -c", "new new-session attach attach-session a at")), mux)},
			otherwise: quick, examples: []ruleExample{{"tmux new -d", catQuick}, {"tmux", catInteractive}, {"tmux ls", catQuick}}},
		{programs: "screen", cases: []ruleCase{when(either(both(short("d"), short("m")), flag("-ls -list -X")), quick)},
			otherwise: mux, examples: []ruleExample{{"screen -dm cmd", catQuick}, {"screen", catInteractive}}},
		{programs: "psql pgcli", cases: []ruleCase{when(either(flag("-c --command -f --file -l --list"), not(stdinTTY())), know(catNetwork, "runs a database query"))},
			otherwise: dbShell, examples: []ruleExample{{"psql -c 'select 1'", catNetwork}, {"psql", catInteractive}}},
		{programs: "mysql mariadb mycli", cases: []ruleCase{when(either(flag("-e --execute"), short("e"), not(stdinTTY())), know(catNetwork, "runs a database query"))},
			otherwise: dbShell, examples: []ruleExample{{"mysql -e 'select 1'", catNetwork}, {"mysql", catInteractive}}},
		{programs: "sqlite3 sqlite", cases: []ruleCase{when(either(positionalCount("-cmd -separator -newline -nullvalue", ">=", 2), not(stdinTTY())), quick)},
			otherwise: dbShell, examples: []ruleExample{{"sqlite3 app.db 'select 1'", catQuick}, {"sqlite3 app.db", catInteractive}}},
		{programs: "redis-cli valkey-cli", family: classifyRedisCLI,
			examples: []ruleExample{{"redis-cli monitor", catFollow}, {"redis-cli get k", catNetwork}, {"redis-cli", catInteractive}}},
		{programs: "mongo mongosh", cases: []ruleCase{when(either(flag("--eval -f --file"), positionalCount("--host --port -u -p --username --password --authenticationDatabase", ">", 1), not(stdinTTY())), know(catNetwork, "runs a database command"))},
			otherwise: dbShell, examples: []ruleExample{{"mongosh --eval 'db.x.count()'", catNetwork}, {"mongosh", catInteractive}}},
		{programs: "gdb cgdb", cases: []ruleCase{when(flag("-batch --batch"), quick)}, otherwise: debugger,
			examples: []ruleExample{{"gdb -batch -ex bt ./a", catQuick}, {"gdb ./a", catInteractive}}},
		{programs: "lldb", cases: []ruleCase{when(flag("-b --batch"), quick)}, otherwise: debugger,
			examples: []ruleExample{{"lldb -b ./a", catQuick}, {"lldb ./a", catInteractive}}},
		{programs: "ruby perl lua luajit php R julia scala octave ghc sbt lein clojure clj", family: familyNamed(classifyInterpreter),
			examples: []ruleExample{{"perl", catReadsInput}, {"lua", catInteractive}}},
		{programs: "jupyter", cases: []ruleCase{
			when(sub("", "notebook lab server"), know(catServer, "starts a notebook server that runs until stopped")),
			when(sub("", "console qtconsole"), console),
			when(sub("", "nbconvert execute"), know(catBuild, "runs a notebook"))},
			otherwise: quick, examples: []ruleExample{{"jupyter lab", catServer}, {"jupyter console", catInteractive}, {"jupyter nbconvert x.ipynb", catBuild}}},
		{programs: "jupyter-lab jupyter-notebook", otherwise: know(catServer, "starts a notebook server that runs until stopped"),
			examples: []ruleExample{{"jupyter-lab", catServer}}},
		{programs: "flask", cases: []ruleCase{
			when(sub("-A --app -e --env-file", "run"), devServer),
			when(sub("-A --app -e --env-file", "shell"), subShell)},
			otherwise: quick, examples: []ruleExample{{"flask run", catServer}, {"flask shell", catInteractive}, {"flask routes", catQuick}}},
		{programs: "fastapi", cases: []ruleCase{when(sub("", "dev run"), know(catServer, "starts a server that runs until stopped"))},
			fallThrough: true, examples: []ruleExample{{"fastapi dev main.py", catServer}}},
		{programs: "streamlit panel bokeh voila gradio chainlit marimo mkdocs hugo jekyll zola eleventy docusaurus mlflow", family: familyNamed(func(_ invocation, name string, args []string) knowledge { return classifySiteTool(name, args) }),
			examples: []ruleExample{{"mkdocs serve", catServer}}},
		{programs: "celery rq dramatiq huey_consumer arq temporal", cases: []ruleCase{when(anyPositional("-A --app -l --loglevel -Q -c --concurrency", "worker beat flower server start-dev"), know(catServer, "starts a worker that runs until stopped"))},
			otherwise: quick, examples: []ruleExample{{"celery -A app worker", catServer}, {"celery -A app inspect", catQuick}}},
		{programs: "rails", cases: []ruleCase{
			when(sub("-e -p -b", "s server"), devServer),
			when(sub("-e -p -b", "c console dbconsole db"), console),
			when(sub("-e -p -b", "test spec"), know(catTest, ""))},
			otherwise: quick, examples: []ruleExample{{"rails s", catServer}, {"rails c", catInteractive}, {"rails test", catTest}, {"rails routes", catQuick}}},
		{programs: "rake", cases: []ruleCase{when(func(_ invocation, args []string) bool {
			t := firstPositional(args, "-f -C")
			return inWords("test spec", t) || strings.HasPrefix(t, "test:") || strings.HasPrefix(t, "spec")
		}, know(catTest, ""))},
			otherwise: knowledge{does: "runs a rake task"}, examples: []ruleExample{{"rake test", catTest}, {"rake db:migrate", catUnknown}}},
		{programs: "bundle", cases: []ruleCase{when(either(sub("", "install update i"), noArgs()), know(catPackage, ""))},
			otherwise: quick, examples: []ruleExample{{"bundle install", catPackage}, {"bundle outdated", catQuick}}},
		{programs: "foreman overmind hivemind honcho", cases: []ruleCase{when(either(sub("-f -d", "start s"), noArgs()), know(catServer, "starts the Procfile's services, which run until stopped"))},
			otherwise: quick, examples: []ruleExample{{"foreman start", catServer}, {"foreman check", catQuick}}},
		{programs: "pm2", cases: []ruleCase{
			when(sub("", "logs"), know(catFollow, "follows logs until stopped")),
			when(sub("", "monit dash"), know(catInteractive, "is a dashboard that waits for a person"))},
			otherwise: know(catQuick, "manages background processes and returns"), examples: []ruleExample{{"pm2 logs", catFollow}, {"pm2 monit", catInteractive}, {"pm2 start app.js", catQuick}}},
		{programs: "pip pip3", family: familyArgs(classifyPip), examples: []ruleExample{{"pip install x", catPackage}}},
		{programs: "uv", cases: []ruleCase{
			whenBuild(sub("", "pip"), func(_ invocation, args []string) knowledge { return classifyPip(args[indexOf(args, "pip")+1:]) }),
			when(sub("", "sync add lock install remove venv tool python"), know(catPackage, ""))},
			otherwise: quick, examples: []ruleExample{{"uv pip install x", catPackage}, {"uv sync", catPackage}, {"uv --version", catQuick}}},
		{programs: "poetry pipenv pdm hatch rye", cases: []ruleCase{
			when(either(sub("", "install add update lock sync remove"), noSub("")), know(catPackage, "")),
			when(sub("", "shell"), subShell)},
			otherwise: quick, examples: []ruleExample{{"poetry install", catPackage}, {"poetry shell", catInteractive}, {"poetry version", catQuick}}},
		{programs: "conda mamba micromamba", cases: []ruleCase{
			whenBuild(sub("-n --name -p --prefix -c --channel -f --file", "install create update upgrade remove uninstall env"), func(_ invocation, args []string) knowledge {
				k := know(catPackage, "")
				if !hasShort(args, "y") && !hasFlag(args, "--yes") {
					k.prompt = "asks to proceed unless given -y"
				}
				return k
			})},
			otherwise: quick, examples: []ruleExample{{"conda install -y x", catPackage}, {"conda list", catQuick}}},
		{programs: "apt apt-get aptitude", family: family(classifyApt),
			examples: []ruleExample{{"apt-get upgrade", catLong}, {"apt-get install -y jq", catPackage}, {"apt list", catQuick}}},
		{programs: "brew", cases: []ruleCase{
			when(sub("", "upgrade"), know(catLong, "upgrades every installed formula")),
			when(sub("", "install reinstall update bundle tap"), know(catPackage, ""))},
			otherwise: quick, examples: []ruleExample{{"brew upgrade", catLong}, {"brew install jq", catPackage}, {"brew list", catQuick}}},
		{programs: "vite", cases: []ruleCase{
			when(either(noSub(viteArgs), sub(viteArgs, "dev serve preview")), devServer),
			when(sub(viteArgs, "build optimize"), know(catBuild, ""))},
			examples: []ruleExample{{"vite", catServer}, {"vite build", catBuild}}},
		{programs: "next nuxt nuxi astro remix gatsby ng ember parcel expo react-native react-scripts storybook wrangler netlify vercel firebase turbo nx vitest jest webpack webpack-cli tsc rollup esbuild playwright cypress karma tsx ts-node supabase localstack ollama vllm",
			family:   familyNamed(func(_ invocation, name string, args []string) knowledge { return classifyJSTool(name, args) }),
			examples: []ruleExample{{"next dev", catServer}, {"next build", catBuild}}},
		{programs: "mvn mvnw gradle gradlew", family: familyNamed(func(_ invocation, name string, args []string) knowledge { return classifyJVMBuild(name, args) }),
			examples: []ruleExample{{"mvn test", catTest}}},
		{programs: "dotnet", cases: []ruleCase{
			when(sub("", "watch"), know(catFollow, "rebuilds on change until stopped")),
			when(sub("", "test"), know(catTest, "")),
			when(sub("", "build publish pack msbuild"), know(catBuild, "")),
			when(sub("", "restore add tool"), know(catPackage, "")),
			when(sub("", "run"), knowledge{does: "runs a .NET program"})},
			otherwise: quick, examples: []ruleExample{{"dotnet watch", catFollow}, {"dotnet test", catTest}, {"dotnet build", catBuild}, {"dotnet restore", catPackage}, {"dotnet run", catUnknown}, {"dotnet --info", catQuick}}},
		{programs: "mix", cases: []ruleCase{
			when(sub("", "phx.server"), know(catServer, "starts a Phoenix server that runs until stopped")),
			when(sub("", "test"), know(catTest, "")),
			when(sub("", "compile"), know(catBuild, "")),
			when(sub("", "deps.get deps.update"), know(catPackage, ""))},
			otherwise: knowledge{does: "runs a mix task"}, examples: []ruleExample{{"mix phx.server", catServer}, {"mix test", catTest}, {"mix compile", catBuild}, {"mix deps.get", catPackage}}},
		{programs: "swift", cases: []ruleCase{
			when(sub("", "build"), know(catBuild, "")),
			when(sub("", "test"), know(catTest, "")),
			when(noSub(""), know(catInteractive, "opens a REPL that waits for a person"))},
			examples: []ruleExample{{"swift build", catBuild}, {"swift test", catTest}, {"swift", catInteractive}}},
		{programs: "bazel bazelisk buck buck2 pants", cases: []ruleCase{
			when(sub("", "build test coverage"), know(catLong, "builds with a large build system")),
			when(sub("", "run"), knowledge{does: "builds and runs a target"})},
			otherwise: quick, examples: []ruleExample{{"bazel build //...", catLong}, {"bazel version", catQuick}}},
		{programs: "cmake", cases: []ruleCase{when(flag("--build --install"), know(catBuild, ""))},
			otherwise: know(catQuick, "configures a build"), examples: []ruleExample{{"cmake --build build", catBuild}, {"cmake -B build", catQuick}}},
		{programs: "meson", cases: []ruleCase{when(sub("", "compile"), know(catBuild, "")), when(sub("", "test"), know(catTest, ""))},
			otherwise: quick, examples: []ruleExample{{"meson compile", catBuild}, {"meson test", catTest}, {"meson setup b", catQuick}}},
		{programs: "terraform tofu terragrunt", cases: []ruleCase{
			whenBuild(sub("-chdir", "apply destroy"), func(_ invocation, args []string) knowledge {
				k := know(catLong, "changes infrastructure")
				if !hasFlag(args, "-auto-approve --auto-approve") {
					k.prompt = "asks \"Enter a value:\" to approve unless given -auto-approve"
				}
				return k
			}),
			when(sub("-chdir", "init plan refresh import"), know(catPackage, "talks to the providers")),
			when(sub("-chdir", "console"), console)},
			otherwise: quick, examples: []ruleExample{{"terraform apply", catLong}, {"terraform plan", catPackage}, {"terraform console", catInteractive}, {"terraform fmt", catQuick}}},
		{programs: "ansible-playbook", otherwise: know(catLong, "runs a playbook"), examples: []ruleExample{{"ansible-playbook site.yml", catLong}}},
		{programs: "helm", cases: []ruleCase{when(sub("-n --namespace --kube-context", "install upgrade uninstall dependency repo pull"), know(catPackage, "talks to the cluster"))},
			otherwise: know(catNetwork, ""), examples: []ruleExample{{"helm install x y", catPackage}, {"helm list", catNetwork}}},
		{programs: "minikube kind k3d", cases: []ruleCase{
			when(sub("", "tunnel dashboard mount"), know(catServer, "runs until stopped")),
			when(sub("", "start create delete"), know(catPackage, "creates or removes a local cluster"))},
			otherwise: quick, examples: []ruleExample{{"minikube tunnel", catServer}, {"minikube start", catPackage}, {"minikube ip", catQuick}}},
		{programs: "vagrant", cases: []ruleCase{
			when(sub("", "up provision reload"), know(catLong, "starts a virtual machine")),
			when(sub("", "ssh"), know(catInteractive, "opens a shell in the virtual machine"))},
			otherwise: quick, examples: []ruleExample{{"vagrant up", catLong}, {"vagrant ssh", catInteractive}, {"vagrant status", catQuick}}},
		{programs: "packer", otherwise: know(catLong, "builds a machine image"), examples: []ruleExample{{"packer build x.pkr.hcl", catLong}}},
		{programs: "aws", family: family(classifyAWS), examples: []ruleExample{{"aws logs tail g --follow", catFollow}, {"aws configure", catInteractive}}},
		{programs: "gh", family: family(classifyGH), examples: []ruleExample{{"gh auth login", catInteractive}, {"gh run watch", catPackage}, {"gh pr list", catNetwork}}},
		{programs: "ssh-keygen", cases: []ruleCase{when(either(short("lFRy"), both(short("f"), short("N"))), quick)},
			otherwise: know(catInteractive, "asks where to save the key and for a passphrase"), examples: []ruleExample{{"ssh-keygen -l -f k", catQuick}, {"ssh-keygen", catInteractive}}},
		{programs: "gpg gpg2", cases: []ruleCase{when(flag("--gen-key --full-generate-key --full-gen-key --edit-key --card-edit --generate-key"), know(catInteractive, "asks questions in the terminal"))},
			otherwise: quick, examples: []ruleExample{{"gpg --full-generate-key", catInteractive}, {"gpg --list-keys", catQuick}}},
		{programs: "read select", cases: []ruleCase{when(stdinTTY(), know(catReadsInput, "reads a line from the terminal"))},
			otherwise: quick, examples: []ruleExample{{"read answer", catReadsInput}}},
		{programs: "kubens kubectx", otherwise: quick, examples: []ruleExample{{"kubectx", catQuick}}},
		{programs: "xargs", cases: []ruleCase{when(both(stdinTTY(), not(short("a")), not(flag("--arg-file"))), know(catReadsInput, "reads arguments from the terminal until end of input"))},
			otherwise: knowledge{does: "runs a command for each input line"}, examples: []ruleExample{{"xargs rm", catReadsInput}}},
		// Rules that only carry a bound: classify sees through flock (a
		// wrapper), and curl, wget are in the simple table.
		{programs: "flock", fallThrough: true, bound: boundFlock},
		{programs: "curl", fallThrough: true, bound: boundCurl, examples: []ruleExample{{"curl -m 5 http://x", catNetwork}}},
		{programs: "wget", fallThrough: true, bound: boundWget, examples: []ruleExample{{"wget -T 5 http://x", catNetwork}}},
	}
}

const (
	systemctlArgs = "-H --host -M --machine -t --type -p --property -n --lines -o --output --state"
	viteArgs      = "--config -c --mode -m --base --host --port"
)

func classifySleep(_ invocation, _ string, args []string) (knowledge, bool) {
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
}

func manPager(inv invocation, args []string) knowledge {
	_, plain := inv.assigned("MANPAGER")
	if v, ok := inv.assigned("PAGER"); ok && (v == "cat" || v == "") {
		plain = true
	}
	return pager(inv, plain || hasFlag(args, "-P --pager"), "opens a manual in a pager")
}

func classifyRedisCLI(inv invocation, _ string, args []string) (knowledge, bool) {
	p := positionals(args, "-h -p -a -n -u -s --user --pass -r -i")
	switch {
	case len(p) > 0 && inWords("monitor subscribe psubscribe ssubscribe", strings.ToLower(p[0])):
		return know(catFollow, "streams events until stopped"), true
	case len(p) > 0 || hasFlag(args, "--scan --stat --bigkeys") || !inv.stdinTTY:
		return know(catNetwork, "runs a Redis command"), true
	}
	return know(catInteractive, "opens a Redis shell that waits for a person"), true
}

func classifyApt(_ invocation, args []string) knowledge {
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
	return k
}

func classifyAWS(inv invocation, args []string) knowledge {
	if p := positionals(args, "--profile --region --output --query --endpoint-url"); len(p) >= 2 && p[0] == "logs" && p[1] == "tail" && hasFlag(args, "--follow") {
		return know(catFollow, "follows logs until stopped")
	}
	if len(args) > 0 && (args[0] == "configure" || indexOf(args, "start-session") >= 0) {
		return know(catInteractive, "asks for input")
	}
	v, set := inv.assigned("AWS_PAGER")
	k := pager(inv, hasFlag(args, "--no-cli-pager") || (set && v == ""), "pages its output")
	if k.cat == catPager {
		k.guess = true
	} else {
		k = know(catNetwork, "")
	}
	return k
}

func classifyGH(_ invocation, args []string) knowledge {
	p := positionals(args, "-R --repo")
	switch {
	case len(p) >= 2 && p[0] == "auth" && p[1] == "login":
		return know(catInteractive, "asks questions in the terminal")
	case len(p) >= 2 && p[0] == "pr" && p[1] == "create" && !hasFlag(args, "--fill -f --title -t --fill-first --fill-verbose"):
		return know(catInteractive, "asks for a title and body in the terminal (no --title or --fill)")
	case len(p) >= 2 && p[0] == "run" && p[1] == "watch":
		return know(catPackage, "waits for a CI run to finish")
	}
	return know(catNetwork, "")
}
