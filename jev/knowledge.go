package jev

import (
	"strings"
	"time"
)

// category is what hangdog knows a kind of command does over time.
type category uint8

const (
	catUnknown     category = iota
	catQuick                // finishes in seconds
	catNetwork              // a network call: seconds, unless the network stalls
	catSleep                // sleeps for a set time
	catPackage              // installs or fetches packages: minutes
	catTest                 // runs tests: minutes
	catBuild                // builds or checks code: minutes
	catLong                 // known to run long but finish
	catServer               // a service that runs until stopped
	catFollow               // follows or watches something until stopped
	catPager                // shows output in a pager that waits for a person
	catEditor               // opens an editor that waits for a person
	catInteractive          // a REPL, shell, TUI or prompt that waits for a person
	catReadsInput           // reads its input from the terminal until end of input
)

// knowledge is what the command table says about one invocation.
type knowledge struct {
	cat category
	// does says what the command does, completing "`npm run dev` …".
	does string
	// prompt says how it may stop to ask for input, if it may.
	prompt string
	// sleep is the duration of a catSleep.
	sleep time.Duration
	// guess marks knowledge from a naming convention, not a certain rule.
	guess bool
}

// never reports whether the category does not finish by itself.
func (c category) never() bool { return c >= catServer }

// persistent reports whether the category runs by design until stopped.
func (c category) persistent() bool { return c == catServer || c == catFollow }

// waitsForPerson reports whether the category waits for someone at the terminal.
func (c category) waitsForPerson() bool {
	return c == catPager || c == catEditor || c == catInteractive || c == catReadsInput
}

func (c category) defaultDoes() string {
	switch c {
	case catQuick:
		return "is a quick command"
	case catNetwork:
		return "makes a network request"
	case catSleep:
		return "sleeps"
	case catPackage:
		return "installs packages"
	case catTest:
		return "runs tests"
	case catBuild:
		return "builds or checks code"
	case catLong:
		return "is known to run long"
	case catServer:
		return "starts a server that runs until stopped"
	case catFollow:
		return "follows output until stopped"
	case catPager:
		return "opens a pager that waits for a person to quit it"
	case catEditor:
		return "opens an editor that waits for a person"
	case catInteractive:
		return "is interactive and waits for a person"
	case catReadsInput:
		return "reads its input from the terminal until end of input"
	}
	return "is not a command hangdog knows"
}

func know(c category, does string) knowledge { return knowledge{cat: c, does: does} }

func guessed(c category, does string) knowledge { return knowledge{cat: c, does: does, guess: true} }

// simpleCommands names programs whose category does not depend on their
// arguments. A static array of strings: no start-up cost.
var simpleCommands = [...]struct {
	names string
	cat   category
	does  string
}{
	{"ls ll la pwd echo printf true false test [ [[ which whereis type whoami id groups date uname hostname arch mkdir rmdir rm cp mv ln touch chmod chown chgrp stat file basename dirname realpath readlink printenv export set unset alias source . cd pushd popd diff cmp comm du df free uptime ps pgrep pkill kill killall lsof ss netstat ip ifconfig tree expr mktemp install sync nproc getconf locale lscpu lsblk findmnt rg ag ack fd fdfind locate find seq eslint prettier biome oxlint stylelint ruff black isort flake8 autopep8 yapf gofmt goimports rustfmt clang-format shellcheck shfmt hadolint tar zip unzip gzip gunzip bzip2 xz zstd 7z unrar openssl dig nslookup host whois mount umount lsmod modprobe usermod useradd groupadd sysctl ulimit umask wait trap exit return break continue shift eval let declare local readonly getopts hash history jobs fg bg disown times caller compgen complete shopt bind", catQuick, ""},
	{"curl wget http https xh httpie aria2c", catNetwork, "makes a network request (it can hang if the network stalls)"},
	{"scp rsync rclone", catPackage, "copies files over the network"},
	{"less more most pg", catPager, "is a pager that waits for a person to quit it"},
	{"vi vim nvim view vimdiff nvimdiff nano pico micro joe jed mcedit hx helix kak ne ex sudoedit visudo vipw vigr", catEditor, "is an editor that waits for a person"},
	{"top htop btop atop glances nvtop iotop iftop nethogs bmon nload tig lazygit lazydocker k9s ranger nnn mc vifm ncdu nmtui alsamixer cmus newsboat w3m lynx links elinks mutt neomutt fzf sk dialog whiptail passwd su login newgrp ssh-copy-id ipython bpython ptpython irb pry ghci iex erl clj pdb ipdb telnet ftp minicom vagrant-ssh", catInteractive, "is interactive and waits for a person"},
	{"nodemon ts-node-dev node-dev entr watchexec reflex air fswatch watchman-make ptw pytest-watch gulp-watch stern", catFollow, "watches for changes and runs until stopped"},
	{"watch", catFollow, "repeats a command until stopped"},
	{"uvicorn gunicorn hypercorn daphne waitress-serve granian http-server live-server lite-server browser-sync json-server webpack-dev-server ngrok lt localtunnel redis-server mongod postgres mysqld memcached etcd prometheus grafana-server mailhog mailpit azurite llama-server sidekiq puma unicorn rackup thin tensorboard start-storybook", catServer, "starts a server that runs until stopped"},
	{"make gmake ninja gcc g++ cc c++ clang clang++ ld javac kotlinc rustc swc babel mypy pyright pylint golangci-lint staticcheck msbuild", catBuild, ""},
	{"pytest py.test tox nox behave rspec phpunit pest ctest mocha ava jasmine tap uvu", catTest, ""},
	{"apk pacman zypper dnf yum brew port snap flatpak gem composer bundler", catPackage, ""},
}

// lookupSimple finds name in simpleCommands. Names ending in "?" there are
// handled by classify first and listed only as a reminder; they never match.
func lookupSimple(name string) (knowledge, bool) {
	for _, e := range simpleCommands {
		if inWords(e.names, name) {
			return knowledge{cat: e.cat, does: e.does}, true
		}
	}
	return knowledge{}, false
}

// classify says what an invocation is, from its program, its subcommand and
// the flags that change its nature (`-f`, `--watch`, `-m`, `-d`, `-y`…).
func classify(inv invocation) knowledge {
	name := inv.name()
	args := inv.args()
	if name == "" {
		return knowledge{}
	}
	if watchFlag(args) {
		return know(catFollow, "runs in watch mode until stopped")
	}
	if k, ok := classifyByName(inv, name, args); ok {
		return k
	}
	if k, ok := lookupSimple(name); ok {
		return k
	}
	if k, ok := readsTerminal(inv, name, args); ok {
		return k
	}
	if isScriptPath(inv.argv[0]) {
		return knowledge{does: "runs a script hangdog knows nothing about"}
	}
	return knowledge{}
}

// watchFlag reports a --watch style flag that is not turned off
// (--watch=false).
func watchFlag(args []string) bool {
	for _, a := range args { // after `--` too: `npm test -- --watch` passes it on
		name, v, hasValue := strings.Cut(a, "=")
		if !inWords("--watch --watchAll --watch-all", name) {
			continue
		}
		if !hasValue || !inWords("false 0 no never off", strings.ToLower(v)) {
			return true
		}
	}
	return false
}

func isScriptPath(argv0 string) bool {
	return strings.Contains(argv0, "/") || strings.Contains(argv0, ".")
}

// pager is a command that pages its output when its output is the terminal
// and nothing turned paging off.
func pager(inv invocation, off bool, does string) knowledge {
	if !off {
		if v, ok := inv.assigned("PAGER"); ok && (v == "cat" || v == "") {
			off = true
		}
	}
	if off || !inv.stdoutTTY {
		return know(catQuick, "")
	}
	return know(catPager, does+"; a pager waits for a person to quit it")
}
