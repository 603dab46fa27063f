package jev

// stdinReaders lists programs that read standard input when given no file,
// with the options that take a value (so they are not mistaken for files)
// and how many operands come before the files (grep's pattern, sed's script).
var stdinReaders = [...]struct {
	names   string
	withArg string
	program int    // operands before the files
	inline  string // options that give the program instead of an operand
	noInput string // options after which no input is read
	noShort string // short option letters after which no input is read
}{
	{"cat rev md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum wc gzip gunzip zcat bzip2 bunzip2 xz unxz zstd", "", 0, "", "--version --help", ""},
	{"base64 base32", "-w --wrap", 0, "", "--version --help", ""},
	{"tac", "-s --separator", 0, "", "--version --help", ""},
	{"nl", "-b -d -f -h -i -l -n -s -v -w", 0, "", "--version --help", ""},
	{"fold fmt expand unexpand", "-w -p -g -t --width --tabs", 0, "", "--version --help", ""},
	{"uniq", "-f -s -w --skip-fields --skip-chars --check-chars", 0, "", "--version --help", ""},
	{"column", "-s -c -o -N -R -W -H -E", 0, "", "--version --help", ""},
	{"paste", "-d --delimiters", 0, "", "--version --help", ""},
	{"od", "-A -j -N -S -t -w", 0, "", "--version --help", ""},
	{"xxd", "-c -g -l -o -s -n", 0, "", "--version --help", ""},
	{"hexdump", "-e -f -n -s", 0, "", "--version --help", ""},
	{"strings", "-n -t -e -T", 0, "", "--version --help", ""},
	{"head tail", "-n -c --lines --bytes --pid -s --sleep-interval", 0, "", "--version --help", ""},
	{"sort", "-k -t -o -S -T --key --field-separator --output --buffer-size --temporary-directory --parallel --batch-size", 0, "", "--version --help --files0-from", ""},
	{"cut", "-d -f -c -b --delimiter --fields --characters --bytes --output-delimiter", 0, "", "--version --help", ""},
	{"tr tee col colrm iconv", "-f -t -l", 1 << 20, "", "--version --help", ""},
	{"grep egrep fgrep zgrep", "-e -f -m -A -B -C -d -D --regexp --file --max-count --after-context --before-context --context --include --exclude --exclude-dir --label", 1, "-e -f --regexp --file", "--recursive --dereference-recursive --version --help", "rR"},
	{"sed", "-e -f -l --expression --file --line-length", 1, "-e -f --expression --file", "--version --help", ""},
	{"awk gawk mawk nawk", "-F -v -f --field-separator --assign --file", 1, "-f --file", "--version --help", ""},
	{"jq gojq yq", "-L --indent --arg --argjson --slurpfile --rawfile", 1, "-f --from-file", "--null-input --version --help", "n"},
	{"bc dc", "", 0, "", "--version --help", ""},
	{"mail mailx sendmail", "-s -c -b -r -a -f", 1 << 20, "", "--version --help", ""},
	{"ed", "-p", 1 << 20, "", "--version --help", ""},
}

// readsTerminal reports a program that, as written, reads its input from the
// terminal: `cat` or `grep pattern` with no file, `tr`, `tee`.
func readsTerminal(inv invocation, name string, args []string) (knowledge, bool) {
	for _, r := range stdinReaders {
		if !inWords(r.names, name) {
			continue
		}
		if !inv.stdinTTY || hasFlag(args, r.noInput) || (r.noShort != "" && hasShort(args, r.noShort)) {
			return know(catQuick, ""), true
		}
		program := r.program
		if r.inline != "" && hasFlag(args, r.inline) {
			program = 0
		}
		files := len(positionals(args, r.withArg)) - program
		if name == "jq" || name == "gojq" || name == "yq" {
			files -= countFlags(args, "--arg --argjson --slurpfile --rawfile") // each takes a second value
		}
		if files > 0 && indexOf(args, "-") < 0 {
			return know(catQuick, ""), true
		}
		return readsInput(inv, "reads its input from the terminal (no file given)"), true
	}
	return knowledge{}, false
}

func countFlags(args []string, flags string) int {
	n := 0
	for _, a := range args {
		if inWords(flags, a) {
			n++
		}
	}
	return n
}

// readsInput is a program reading its standard input, which is the terminal
// when stdinTTY: it ends only when someone types end-of-input.
func readsInput(inv invocation, does string) knowledge {
	if !inv.stdinTTY {
		return knowledge{cat: catQuick}
	}
	return know(catReadsInput, does)
}
