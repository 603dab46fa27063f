package jev

import (
	"strconv"
	"strings"
	"time"

	"github.com/hangdog/hangdog/jev/internal/shell"
)

// ProgramBound is how long a running process says it may take, from its own
// argv (as /proc/PID/cmdline gives it), counted from its start: `sleep 14`,
// `timeout 30 …`, `flock -w 45 …`, `ping -c 5 -i 2`, `curl -m 20`, `wget -T 10
// -t 2`, `nc -w 5`, `ssh -o ConnectTimeout=10 host 'sleep 15; ls'`, `docker
// exec c sleep 10`, `sh -c 'sleep 14 && ls'`. It applies to the process that
// runs now, wherever it sits in the command line — after an echo, inside a
// pipeline, a subshell or a make recipe.
//
// The watchdog uses it as it uses DeclaredBound: as a veto, so nothing is
// called stuck or quick-but-late before the bound has passed. An upper bound
// that is too long only delays an action; none is claimed when unsure.
func ProgramBound(argv []string) (time.Duration, bool) {
	return programBound(argv, 0)
}

func programBound(argv []string, depth int) (time.Duration, bool) {
	if len(argv) == 0 || depth > maxUnwrap {
		return 0, false
	}
	// A wrapper may declare its own bound (flock -w): it is read before
	// unwrap looks through it to what it runs.
	if d, ok := ownBound(argv, depth); ok {
		return min(d, maxBound), true
	}
	inv := unwrap(&shell.Simple{Args: argv}, false, false)
	d, ok := ownBound(inv.argv, depth)
	if inv.timeout > 0 && (!ok || inv.timeout < d) {
		return min(inv.timeout, maxBound), true
	}
	return min(d, maxBound), ok
}

// ownBound is the bound of one program by its options: its rule's bound
// extractor (see programRules).
func ownBound(argv []string, _ int) (time.Duration, bool) {
	if len(argv) == 0 {
		return 0, false
	}
	return ruleBound(commandName(argv[0]), argv[1:])
}

func boundShell(args []string) (time.Duration, bool) {
	if script, ok := optionValue(args, "-c"); ok {
		return scriptBound(script)
	}
	return 0, false
}

// boundSSH: the connect timeout, plus the remote command's own bound.
func boundSSH(args []string) (time.Duration, bool) {
	connect, hasConnect := sshConnectTimeout(args)
	rest := afterOptions(args, "-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B -P")
	if len(rest) > 1 {
		if d, ok := scriptBound(strings.Join(rest[1:], " ")); ok {
			return d + connect, true
		}
	}
	return connect, hasConnect
}

// boundExec: `docker exec [opts] CONTAINER CMD…`, `kubectl exec POD -- CMD…`.
func boundExec(args []string) (time.Duration, bool) {
	if len(args) == 0 || args[0] != "exec" {
		return 0, false
	}
	rest := afterOptions(args[1:], "-e --env -u --user -w --workdir -c --container -n --namespace --env-file --detach-keys")
	if len(rest) < 2 {
		return 0, false
	}
	cmd := rest[1:]
	if cmd[0] == "--" {
		cmd = cmd[1:]
	}
	return programBound(cmd, 1)
}

func boundFlock(args []string) (time.Duration, bool) {
	return secondsOption(args, "-w", "--wait", "--timeout")
}

// boundPing: -w is a deadline; -c N replies -i S apart, the last waited for
// up to -W (10 s by default).
func boundPing(args []string) (time.Duration, bool) {
	if d, ok := secondsOption(args, "-w", "--deadline"); ok {
		return d, true
	}
	n, ok := secondsOption(args, "-c", "--count")
	if !ok {
		return 0, false
	}
	every, ok := secondsOption(args, "-i", "--interval")
	if !ok {
		every = time.Second
	}
	wait, ok := secondsOption(args, "-W", "--timeout")
	if !ok {
		wait = 10 * time.Second
	}
	return time.Duration(n.Seconds())*every + wait, true
}

func boundCurl(args []string) (time.Duration, bool) { return secondsOption(args, "-m", "--max-time") }

// boundWget: -T per try, times -t tries (20 by default; 0 is forever).
func boundWget(args []string) (time.Duration, bool) {
	t, ok := secondsOption(args, "-T", "--timeout")
	if !ok {
		return 0, false
	}
	tries := 20.0
	if n, ok := secondsOption(args, "-t", "--tries"); ok {
		if n == 0 {
			return 0, false
		}
		tries = n.Seconds()
	}
	return time.Duration(float64(t) * tries), true
}

func boundNC(args []string) (time.Duration, bool) { return secondsOption(args, "-w", "--wait") }

// scriptBound is the bound a shell string declares, including a lone sleep:
// for a process already running it, `sleep 14` is certain to end in 14 s.
func scriptBound(script string) (time.Duration, bool) {
	b := boundOfList(shell.Parse(script), 0)
	if d, ok := b.declared(); ok {
		return d, true
	}
	if b.d > 0 && !b.open {
		return b.d, true
	}
	return 0, false
}

// sshConnectTimeout reads -o ConnectTimeout=N (also -oConnectTimeout=N and
// "ConnectTimeout N").
func sshConnectTimeout(args []string) (time.Duration, bool) {
	for i := 0; i < len(args); i++ {
		v := ""
		switch a := args[i]; {
		case a == "-o" && i+1 < len(args):
			v = args[i+1]
			i++
		case strings.HasPrefix(a, "-o"):
			v = a[2:]
		default:
			continue
		}
		key, val, ok := strings.Cut(v, "=")
		if !ok {
			key, val, ok = strings.Cut(v, " ")
		}
		if ok && strings.EqualFold(strings.TrimSpace(key), "ConnectTimeout") {
			if n, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil && n > 0 {
				return time.Duration(n * float64(time.Second)), true
			}
		}
	}
	return 0, false
}

// optionValue finds the value of a short option: "-c VALUE" or "-cVALUE".
func optionValue(args []string, opt string) (string, bool) {
	for i, a := range args {
		if a == opt && i+1 < len(args) {
			return args[i+1], true
		}
		if a == "--" || !strings.HasPrefix(a, "-") {
			return "", false
		}
	}
	return "", false
}

// secondsOption reads a number of seconds given as -X N, -XN, --long N or
// --long=N (a count, for -c and -t, reads the same way).
func secondsOption(args []string, short string, longs ...string) (time.Duration, bool) {
	for i, a := range args {
		if a == "--" {
			break
		}
		val := ""
		switch {
		case a == short && i+1 < len(args):
			val = args[i+1]
		case len(short) == 2 && strings.HasPrefix(a, short) && len(a) > 2 && !strings.HasPrefix(a, "--"):
			val = a[2:]
		default:
			for _, l := range longs {
				if a == l && i+1 < len(args) {
					val = args[i+1]
				} else if v, ok := strings.CutPrefix(a, l+"="); ok {
					val = v
				}
			}
		}
		if val == "" {
			continue
		}
		n, err := strconv.ParseFloat(val, 64)
		if err != nil || n < 0 || n > maxBound.Seconds() {
			return 0, false
		}
		return time.Duration(n * float64(time.Second)), true
	}
	return 0, false
}
