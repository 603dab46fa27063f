package jev

import "strings"

// classifyGit knows which git commands page (under hangdog the output is a
// terminal, so git starts less), which open an editor, and which prompt.
func classifyGit(inv invocation, args []string) knowledge {
	noPager := false
	if v, ok := inv.assigned("GIT_PAGER"); ok && (v == "cat" || v == "") {
		noPager = true
	}
	rest := args
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
		a := rest[0]
		rest = rest[1:]
		switch {
		case a == "--no-pager" || a == "-P":
			noPager = true
		case a == "-c" && len(rest) > 0:
			if c := strings.ToLower(rest[0]); c == "core.pager=cat" || c == "core.pager=" || strings.HasPrefix(c, "pager.") && strings.HasSuffix(c, "=false") {
				noPager = true
			}
			rest = rest[1:]
		case a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			if len(rest) > 0 {
				rest = rest[1:]
			}
		}
	}
	if len(rest) == 0 {
		return know(catQuick, "")
	}
	sub, sargs := rest[0], rest[1:]
	if sub == "help" || hasFlag(sargs, "--help") {
		return pager(inv, noPager, "opens the manual")
	}
	pagedAdvice := "pages output longer than the screen (use git --no-pager)"
	switch sub {
	case "log", "diff", "show", "blame", "annotate", "shortlog", "reflog", "whatchanged", "range-diff", "grep", "cherry":
		if hasFlag(sargs, "--quiet -q --exit-code") && sub == "diff" {
			return know(catQuick, "")
		}
		k := pager(inv, noPager, pagedAdvice)
		k.guess = k.cat == catPager
		return k
	case "branch", "tag":
		if sub == "tag" && hasShort(sargs, "as") && !hasShort(sargs, "mF") && !hasFlag(sargs, "--message --file") {
			return know(catEditor, "opens an editor for the tag message (no -m)")
		}
		if len(positionals(sargs, "--sort --format --contains --merged --no-merged --points-at")) == 0 {
			k := pager(inv, noPager, pagedAdvice)
			k.guess = k.cat == catPager
			return k
		}
		return know(catQuick, "")
	case "stash":
		if len(sargs) > 0 && (sargs[0] == "list" || sargs[0] == "show") {
			k := pager(inv, noPager, pagedAdvice)
			k.guess = k.cat == catPager
			return k
		}
		return know(catQuick, "")
	case "commit":
		if _, ok := inv.assigned("GIT_EDITOR"); ok || hasShort(sargs, "mFC") ||
			hasFlag(sargs, "--message --file --reuse-message --no-edit --dry-run") ||
			(hasFlag(sargs, "--fixup") && !strings.Contains(strings.Join(sargs, " "), "amend:") && !strings.Contains(strings.Join(sargs, " "), "reword:")) {
			return know(catQuick, "")
		}
		return know(catEditor, "opens an editor for the commit message (no -m)")
	case "rebase":
		if hasShort(sargs, "i") || hasFlag(sargs, "--interactive") {
			if _, ok := inv.assigned("GIT_SEQUENCE_EDITOR"); !ok {
				return know(catEditor, "opens an editor for the rebase plan")
			}
		}
		return know(catQuick, "")
	case "merge":
		if hasShort(sargs, "e") || hasFlag(sargs, "--edit") {
			return know(catEditor, "opens an editor for the merge message")
		}
		return know(catQuick, "")
	case "add", "checkout", "reset", "restore":
		if hasShort(sargs, "pie") || hasFlag(sargs, "--patch --interactive --edit") {
			return know(catInteractive, "asks about each change in the terminal")
		}
		return know(catQuick, "")
	case "clone":
		k := know(catPackage, "clones a repository")
		k.prompt = "may ask for credentials"
		return k
	case "fetch", "pull", "push", "ls-remote":
		k := know(catNetwork, "talks to a remote")
		k.prompt = "may ask for credentials"
		return k
	case "submodule", "lfs":
		return know(catPackage, "fetches from remotes")
	case "bisect":
		if len(sargs) > 0 && sargs[0] == "run" {
			return know(catBuild, "runs a test at each step")
		}
	}
	return know(catQuick, "")
}
