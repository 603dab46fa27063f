package shell

import (
	"fmt"
	"strings"
	"testing"
)

// render prints a List compactly so tests can compare whole trees:
// simple commands as [args], assignments as NAME=v:, loops as for(items){…},
// groups as {…}, with pipes and operators between.
func render(l List) string {
	var b strings.Builder
	for i, pl := range l.Pipelines {
		if i > 0 {
			b.WriteString(" ")
		}
		if pl.Negated {
			b.WriteString("! ")
		}
		for j, c := range pl.Commands {
			if j > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(renderCommand(c))
		}
		if pl.Op != "" {
			b.WriteString(" " + pl.Op)
		}
	}
	return b.String()
}

func renderCommand(c Command) string {
	var s string
	switch {
	case c.Simple != nil:
		var parts []string
		for _, a := range c.Simple.Assigns {
			parts = append(parts, a+":")
		}
		parts = append(parts, c.Simple.Args...)
		s = "[" + strings.Join(parts, " ") + "]"
	case c.Loop != nil:
		head := c.Loop.Kind
		switch {
		case c.Loop.Arith != "":
			head += "((" + c.Loop.Arith + "))"
		case c.Loop.Kind == "for":
			head += "(" + strings.Join(c.Loop.Items, ",") + ")"
		default:
			head += "(" + render(c.Loop.Cond) + ")"
		}
		s = head + "{" + render(c.Loop.Body) + "}"
	case c.Group != nil:
		s = "{" + render(*c.Group) + "}"
	default:
		s = "<def>"
	}
	if c.StdinRedirected {
		s += "<"
	}
	if c.StdoutRedirected {
		s += ">"
	}
	return s
}

func TestParse(t *testing.T) {
	tests := []struct{ in, want string }{
		{`ls -la`, `[ls -la]`},
		{`echo "a b" 'c d' e\ f`, `[echo a b c d e f]`},
		{`FOO=1 BAR="x y" make -j4`, `[FOO=1: BAR=x y: make -j4]`},
		{`echo FOO=1`, `[echo FOO=1]`},
		{`a && b || c; d & e`, `[a] && [b] || [c] ; [d] & [e]`},
		{"a\nb", `[a] ; [b]`},
		{`git log | head -5 | grep x`, `[git log] | [head -5] | [grep x]`},
		{`make 2>&1 | tee log`, `[make] | [tee log]`},
		{`make > out.txt 2>&1`, `[make]>`},
		{`echo hi >&2`, `[echo hi]`},
		{`sort < in.txt`, `[sort]<`},
		{`cat <<'EOF' > f.txt
line one; rm -rf /
EOF
ls`, `[cat]<> ; [ls]`},
		{"cat <<-END\n\tbody\n\tEND\necho done", `[cat]< ; [echo done]`},
		{`grep x <<< "$v"`, `[grep x]<`},
		{`for i in $(seq 1 150); do curl -s x; sleep 3; done`, `for($(seq 1 150)){[curl -s x] ; [sleep 3] ;}`},
		{`for ((i=0; i<10; i++)); do echo $i; done`, `for((i=0; i<10; i++)){[echo $i] ;}`},
		{"for f in a b c\ndo\n  echo $f\ndone", `for(a,b,c){[echo $f] ;}`},
		{`while true; do date; sleep 1; done`, `while([true] ;){[date] ; [sleep 1] ;}`},
		{`until curl -sf localhost:3000; do sleep 2; done && open x`, `until([curl -sf localhost:3000] ;){[sleep 2] ;} && [open x]`},
		{`if [ -f x ]; then make; elif y; then z; else w; fi`, `{[[ -f x ]] ; [make] ; [y] ; [z] ; [w] ;}`},
		{`case "$1" in a|b) echo ab;; *) echo other;; esac`, `{[echo ab] [echo other]}`},
		{`(cd sub && make) > log`, `{[cd sub] && [make]}>`},
		{`{ echo a; echo b; } | wc -l`, `{[echo a] ; [echo b] ;} | [wc -l]`},
		{`[[ -n "$x" && -z "$y" ]] && echo ok`, `[[[ -n $x && -z $y ]]] && [echo ok]`},
		{`f() { sleep 100; }; f`, `<def> ; [f]`},
		{`! grep -q x file`, `! [grep -q x file]`},
		{`time make`, `[make]`},
		{`echo $(date +%s) ${HOME} "$(whoami)" ` + "`id -u`", "[echo $(date +%s) ${HOME} $(whoami) `id -u`]"},
		{`diff <(sort a) <(sort b)`, `[diff <(sort a) <(sort b)]`},
		{`echo 'unterminated`, `[echo unterminated]`},
		{`echo "unterminated`, `[echo unterminated]`},
		{`for x in a; do echo`, `for(a){[echo]}`},
		{`) ;; done echo`, `[echo]`},
		{`npm run dev # start the server`, `[npm run dev]`},
		{"make \\\n  -j4", `[make -j4]`},
		{`echo $'a\tb'`, "[echo a\tb]"},
		{`x=$(cat file)`, `[x=$(cat file):]`},
		{`((n++))`, `[((n++))]`},
		{`arr=(1 2 "3 4") && echo ${arr[@]}`, `[arr=(1 2 "3 4"):] && [echo ${arr[@]}]`},
		{`sudo -u bob timeout 5 ls`, `[sudo -u bob timeout 5 ls]`},
	}
	for _, tt := range tests {
		got := render(Parse(tt.in))
		if got != tt.want {
			t.Errorf("Parse(%q)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

// Hostile or broken input must neither panic nor loop.
func TestParseSurvivesHostileInput(t *testing.T) {
	inputs := []string{
		strings.Repeat("(", 10000),
		strings.Repeat("{ ", 10000),
		strings.Repeat("for x in a; do ", 5000),
		strings.Repeat("f() ", 5000),
		strings.Repeat("$(", 5000),
		strings.Repeat("<<E ", 1000),
		"\x00\xff\xfe | ; & ) ( }",
	}
	for i, in := range inputs {
		l := Parse(in)
		if i == len(inputs)-1 && len(render(l)) == 0 {
			t.Errorf("input %d: parsed to nothing", i)
		}
	}
}

func ExampleParse() {
	l := Parse(`timeout 60 npm test && echo ok`)
	for _, pl := range l.Pipelines {
		fmt.Println(pl.Commands[0].Simple.Args, pl.Op)
	}
	// Output:
	// [timeout 60 npm test] &&
	// [echo ok]
}
