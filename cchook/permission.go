package cchook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Permissions, as Claude Code decides them for Bash: the allow/ask/deny
// `Bash(...)` rules of every settings file it reads and of the claude
// command line, matched against each part of the original command
// (`a && b | c`), deny before ask before allow.

type decision string

const (
	decideNone  decision = "" // no rule decides: Claude Code's own way
	decideAllow decision = "allow"
	decideAsk   decision = "ask"
	decideDeny  decision = "deny"
)

// rules are the contents of Bash rules ("" for the bare tool) by kind.
type rules struct{ allow, ask, deny []string }

// settingsFiles are the settings files Claude Code reads for a project.
func settingsFiles(project string, getenv func(string) string) []string {
	files := []string{"/etc/claude-code/managed-settings.json"}
	const managed = "/etc/claude-code/managed-settings.d"
	if ents, err := os.ReadDir(managed); err == nil {
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".json") {
				files = append(files, filepath.Join(managed, e.Name()))
			}
		}
	}
	dir := getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		dir = filepath.Join(getenv("HOME"), ".claude")
	}
	return append(files, filepath.Join(dir, "settings.json"),
		filepath.Join(project, ".claude", "settings.json"), filepath.Join(project, ".claude", "settings.local.json"))
}

// splitRuleList splits 'Bash(git:*),Edit' or 'Bash(a b) Read' into rules:
// commas and spaces outside parentheses separate them.
func splitRuleList(v string) []string {
	var out []string
	depth := 0
	var cur strings.Builder
	for _, ch := range v {
		switch ch {
		case '(':
			depth++
		case ')':
			depth = max(0, depth-1)
		}
		if depth == 0 && (ch == ',' || ch == ' ' || ch == '\t' || ch == '\n') {
			if cur.Len() > 0 {
				out = append(out, cur.String())
			}
			cur.Reset()
			continue
		}
		cur.WriteRune(ch)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// cliRules are the --allowedTools and --disallowedTools of the claude
// process this hook runs under, read from /proc (hooks are not told them):
// the nearest of up to six ancestors that names any.
func cliRules(ppid int) (allow, deny []string) {
	pid := ppid
	for range 6 {
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			break
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			break
		}
		argv := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		found := false
		for i := 0; i < len(argv); i++ {
			name, inline, hasInline := strings.Cut(argv[i], "=")
			var target *[]string
			switch name {
			case "--allowedTools", "--allowed-tools":
				target = &allow
			case "--disallowedTools", "--disallowed-tools":
				target = &deny
			default:
				continue
			}
			found = true
			if hasInline {
				*target = append(*target, splitRuleList(inline)...)
				continue
			}
			for i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
				i++
				*target = append(*target, splitRuleList(argv[i])...)
			}
		}
		if found || pid <= 1 {
			break
		}
		// /proc/PID/stat: "pid (comm) state ppid ...", comm may hold spaces.
		rest := string(stat)
		if j := strings.LastIndexByte(rest, ')'); j >= 0 {
			rest = rest[j+1:]
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			break
		}
		if pid, err = strconv.Atoi(f[1]); err != nil {
			break
		}
	}
	return allow, deny
}

// bashRules gathers the Bash rules of every source Claude Code reads.
func bashRules(project string, getenv func(string) string, ppid int) rules {
	var r rules
	add := func(list *[]string, rule string) {
		rule = strings.TrimSpace(rule)
		if rule == "Bash" {
			*list = append(*list, "")
		} else if inner, ok := strings.CutPrefix(rule, "Bash("); ok && strings.HasSuffix(inner, ")") {
			*list = append(*list, strings.TrimSpace(strings.TrimSuffix(inner, ")")))
		}
	}
	for _, path := range settingsFiles(project, getenv) {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var f struct {
			Permissions struct {
				Allow, Ask, Deny []any
			} `json:"permissions"`
		}
		if json.Unmarshal(b, &f) != nil {
			continue
		}
		for _, x := range []struct {
			from []any
			to   *[]string
		}{{f.Permissions.Allow, &r.allow}, {f.Permissions.Ask, &r.ask}, {f.Permissions.Deny, &r.deny}} {
			for _, rule := range x.from {
				if s, ok := rule.(string); ok {
					add(x.to, s)
				}
			}
		}
	}
	allow, deny := cliRules(ppid)
	for _, a := range allow {
		add(&r.allow, a)
	}
	for _, d := range deny {
		add(&r.deny, d)
	}
	return r
}

// splitCommand splits a shell line into its simple commands at && || ; |
// & and new lines outside quotes; ok is false when it holds what no rule
// can match (command substitution, backticks, here-documents, process
// substitution) or an unclosed quote.
func splitCommand(command string) (parts []string, ok bool) {
	var cur strings.Builder
	var q byte
	flush := func() {
		if p := strings.TrimSpace(cur.String()); p != "" {
			parts = append(parts, p)
		}
		cur.Reset()
	}
	for i := 0; i < len(command); {
		ch := command[i]
		if q != 0 {
			cur.WriteByte(ch)
			switch {
			case ch == '\\' && q == '"' && i+1 < len(command):
				cur.WriteByte(command[i+1])
				i++
			case ch == q:
				q = 0
			case q == '"' && (ch == '`' || strings.HasPrefix(command[i:], "$(")):
				return nil, false
			}
			i++
			continue
		}
		switch {
		case ch == '\'' || ch == '"':
			q = ch
		case ch == '\\' && i+1 < len(command):
			cur.WriteString(command[i : i+2])
			i += 2
			continue
		case ch == '`' || strings.HasPrefix(command[i:], "$(") || strings.HasPrefix(command[i:], "<<") ||
			strings.HasPrefix(command[i:], "<(") || strings.HasPrefix(command[i:], ">("):
			return nil, false
		}
		op := ""
		for _, o := range []string{"&&", "||", ";", "|", "\n"} {
			if strings.HasPrefix(command[i:], o) {
				op = o
				break
			}
		}
		if op == "" && ch == '&' && !strings.HasSuffix(cur.String(), ">") && !strings.HasPrefix(command[i:], "&>") {
			op = "&"
		}
		if op != "" {
			flush()
			i += len(op)
			continue
		}
		cur.WriteByte(ch)
		i++
	}
	if q != 0 {
		return nil, false
	}
	flush()
	return parts, true
}

// wrappers are prefixes Claude Code looks through when it matches a rule.
var wrappers = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:(?:timeout(?:\s+-\S+)*\s+\d+[smhd]?|nice(?:\s+-n\s*-?\d+|\s+-\d+)?|nohup|time)\s+)+`)
})

func ruleMatches(rule, cmd string) bool {
	switch {
	case rule == "" || rule == "*":
		return true
	case strings.HasSuffix(rule, ":*"):
		prefix := strings.TrimSuffix(rule, ":*")
		return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
	case strings.Contains(rule, "*"):
		var rx string
		if strings.HasSuffix(rule, " *") && strings.Count(rule, "*") == 1 {
			rx = regexp.QuoteMeta(strings.TrimSuffix(rule, " *")) + "(?: .*)?"
		} else {
			pieces := strings.Split(rule, "*")
			for i, p := range pieces {
				pieces[i] = regexp.QuoteMeta(p)
			}
			rx = strings.Join(pieces, ".*")
		}
		re, err := regexp.Compile(`(?s)^(?:` + rx + `)$`)
		return err == nil && re.MatchString(cmd)
	}
	return cmd == rule
}

func matches(list []string, part string) bool {
	forms := []string{part}
	if bare := wrappers().ReplaceAllString(part, ""); bare != part {
		forms = append(forms, bare)
	}
	for _, r := range list {
		for _, f := range forms {
			if ruleMatches(r, f) {
				return true
			}
		}
	}
	return false
}

// inside says whether path is root or below it, symbolic links resolved.
func inside(path, root string) bool {
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	path, root = real(path), real(root)
	return path == root || strings.HasPrefix(path, strings.TrimRight(root, "/")+"/")
}

// joinPath is p, relative to dir unless it is absolute, as the shell
// resolves it.
func joinPath(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// expandHome expands a leading ~ as the shell would.
func expandHome(p string, getenv func(string) string) string {
	if p == "~" {
		return getenv("HOME")
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(getenv("HOME"), rest)
	}
	return p
}

// permission is the decision for command: deny or ask when a rule says so,
// allow when every part is allowed (or the session bypasses permissions),
// none when no rule decides.
func permission(command, cwd, project, mode string, r rules, getenv func(string) string) decision {
	parts, ok := splitCommand(command)
	checked := append(slices.Clone(parts), strings.TrimSpace(command))
	for _, p := range checked {
		if matches(r.deny, p) {
			return decideDeny
		}
	}
	for _, p := range checked {
		if matches(r.ask, p) {
			return decideAsk
		}
	}
	switch mode {
	case "bypassPermissions":
		return decideAllow
	case "plan":
		return decideNone
	}
	if !ok {
		if slices.Contains(r.allow, "") || slices.Contains(r.allow, "*") {
			return decideAllow
		}
		return decideNone
	}
	for _, p := range parts {
		words := strings.Fields(p)
		// cd into the project is no permission question for Claude Code.
		if len(words) == 2 && words[0] == "cd" && inside(joinPath(cwd, expandHome(strings.Trim(words[1], `'"`), getenv)), project) {
			continue
		}
		if !matches(r.allow, p) {
			return decideNone
		}
	}
	return decideAllow
}
