package jev

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hangdog/hangdog/jev/internal/shell"
)

// maxBound caps computed bounds so loop arithmetic cannot overflow.
const maxBound = 100 * 365 * 24 * time.Hour

// DeclaredBound reports how long a command line says it may take, from what
// it declares itself: a `timeout N` wrapper, and sleeps that run before or
// between other work (`sleep 330 && k`, or the 150 × `sleep 3` of
// `for i in $(seq 1 150); do x; sleep 3; done`, or zsh's `repeat 6 sleep 1.5`
// after a step). Parts run one after another
// add up; parts of a pipeline run together, so the longest counts; an `&`
// part runs alongside and adds nothing. Branches of if/case and the two sides
// of `||` all count, so the bound is an upper one. A lone `sleep 3` declares
// nothing beyond itself, and neither does a loop whose count is unknown
// (`while true`, `for f in *.txt`).
//
// The watchdog treats the bound as a veto: nothing is called stuck before it
// has passed.
func DeclaredBound(cmd string) (time.Duration, bool) {
	return boundOfList(shell.Parse(cmd), 0).declared()
}

// declared is the bound a whole command line declares, if it declares one.
func (b bound) declared() (time.Duration, bool) {
	if b.d > 0 && (b.timeout || (b.sleeps && b.work)) {
		return b.d, true
	}
	return 0, false
}

// bound is what a piece of a command line declares about its duration.
type bound struct {
	d       time.Duration // the declared time (sleeps, timeouts)
	slept   time.Duration // the part of it that is sleeping, certain to pass
	timeout bool          // a timeout wrapper limits some of it
	sleeps  bool          // some of d is sleeping
	work    bool          // something other than sleep runs
	open    bool          // some of it runs for an unknown time, unlimited
}

func (b bound) then(c bound) bound {
	return bound{
		d:       min(b.d+c.d, maxBound),
		slept:   min(b.slept+c.slept, maxBound),
		timeout: b.timeout || c.timeout,
		sleeps:  b.sleeps || c.sleeps,
		work:    b.work || c.work,
		open:    b.open || c.open,
	}
}

// times is b run n times in a row (a loop's body).
func (b bound) times(n int) bound {
	b.d = time.Duration(min(float64(b.d)*float64(n), float64(maxBound)))
	b.slept = time.Duration(min(float64(b.slept)*float64(n), float64(maxBound)))
	return b
}

func (b bound) alongside(c bound) bound {
	r := b.then(c)
	r.d = max(b.d, c.d)
	r.slept = max(b.slept, c.slept)
	return r
}

// limited applies a `timeout t` to b: it ends by t, sooner if b is shorter
// and fully known.
func (b bound) limited(t time.Duration) bound {
	d := t
	if !b.open && b.d > 0 {
		d = min(t, b.d)
	}
	return bound{d: d, slept: min(b.slept, t), timeout: true, sleeps: b.sleeps, work: b.work}
}

func boundOfList(l shell.List, depth int) bound {
	var total bound
	if depth > maxUnwrap {
		return bound{work: true, open: true}
	}
	for _, pl := range l.Pipelines {
		var p bound
		for i, c := range pl.Commands {
			cb := boundOfCommand(c, depth+1)
			if i == 0 {
				p = cb
			} else {
				p = p.alongside(cb)
			}
		}
		if pl.Background() {
			p = bound{work: p.work || p.sleeps}
		}
		total = total.then(p)
	}
	return total
}

func boundOfCommand(c shell.Command, depth int) bound {
	switch {
	case c.Simple != nil:
		if len(c.Simple.Args) == 0 {
			return bound{}
		}
		inv := unwrap(c.Simple, false, false)
		var b bound
		switch {
		case inv.script != nil:
			b = boundOfList(*inv.script, depth+1)
		case inv.name() == "repeat" && len(inv.argv) > 2:
			// zsh's `repeat N cmd`: a loop whose count is in its words, like
			// a for loop over a list.
			b = bound{work: true, open: true}
			if n, err := strconv.Atoi(inv.argv[1]); err == nil && n >= 0 {
				b = boundOfCommand(shell.Command{Simple: &shell.Simple{Args: inv.argv[2:]}}, depth+1).times(min(n, maxLoopCount))
			}
		case inv.name() == "sleep" && len(inv.argv) > 1:
			if d, ok := sleepDuration(inv.argv[1:]); ok {
				b = bound{d: d, slept: d, sleeps: true}
			} else {
				b = bound{work: true, open: true}
			}
		default:
			b = bound{work: true, open: true}
		}
		if inv.timeout > 0 {
			b = b.limited(inv.timeout)
		}
		return b
	case c.Loop != nil:
		body := boundOfList(c.Loop.Body, depth+1)
		n, ok := loopCount(c.Loop)
		if !ok {
			return bound{work: true, open: true}
		}
		return body.times(n)
	case c.Group != nil:
		return boundOfList(*c.Group, depth+1)
	}
	return bound{}
}

// sleepDuration adds up sleep's arguments (GNU sleep sums them). `infinity`
// or anything unreadable makes the duration unknown.
func sleepDuration(args []string) (time.Duration, bool) {
	var total time.Duration
	for _, a := range args {
		d, ok := parseDuration(a)
		if !ok {
			return 0, false
		}
		total += d
	}
	return min(total, maxBound), true
}

// maxLoopCount keeps a loop count read from text from overflowing.
const maxLoopCount = 1 << 30

// loopCount is how many times a for loop runs, when its words say so.
func loopCount(l *shell.Loop) (int, bool) {
	if l.Kind != "for" {
		return 0, false
	}
	if l.Arith != "" {
		return arithCount(l.Arith)
	}
	if !l.ItemsGiven {
		return 0, false // "$@"
	}
	n := 0
	for _, item := range l.Items {
		c, ok := itemCount(item)
		if !ok {
			return 0, false
		}
		n = min(n+c, maxLoopCount)
	}
	return n, true
}

// itemCount is how many words one item of a for list expands to:
// $(seq …), `seq …`, {A..B[..S]} and {a,b,c} are counted; other expansions
// and globs are unknown.
func itemCount(item string) (int, bool) {
	switch {
	case strings.HasPrefix(item, "$(") && strings.HasSuffix(item, ")") && !strings.HasPrefix(item, "$(("):
		return seqCount(item[2 : len(item)-1])
	case strings.HasPrefix(item, "`") && strings.HasSuffix(item, "`") && len(item) > 1:
		return seqCount(item[1 : len(item)-1])
	case strings.ContainsAny(item, "$`*?["):
		return 0, false
	}
	if m := braceRange().FindStringSubmatch(item); m != nil {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		step := 1
		if m[3] != "" {
			step, _ = strconv.Atoi(m[3])
		}
		return rangeCount(float64(a), float64(b), math.Abs(float64(step)), true)
	}
	if open := strings.IndexByte(item, '{'); open >= 0 {
		if end := strings.IndexByte(item[open:], '}'); end > 0 {
			inner := item[open+1 : open+end]
			if strings.Contains(inner, ",") && !strings.ContainsAny(inner, "{") {
				return strings.Count(inner, ",") + 1, true
			}
		}
	}
	return 1, true
}

var braceRange = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{(-?\d{1,9})\.\.(-?\d{1,9})(?:\.\.(-?\d{1,9}))?\}`)
})

// seqCount counts the numbers `seq [options] [first [incr]] last` prints.
func seqCount(cmd string) (int, bool) {
	l := shell.Parse(cmd)
	if len(l.Pipelines) != 1 || len(l.Pipelines[0].Commands) != 1 || l.Pipelines[0].Commands[0].Simple == nil {
		return 0, false
	}
	args := l.Pipelines[0].Commands[0].Simple.Args
	if len(args) < 2 || commandName(args[0]) != "seq" {
		return 0, false
	}
	var nums []float64
	for i := 1; i < len(args); i++ {
		a := args[i]
		if inWords("-s -f --separator --format", a) {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") && !isNumber(a) {
			continue // -w, --separator=…
		}
		v, err := strconv.ParseFloat(a, 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, false
		}
		nums = append(nums, v)
	}
	switch len(nums) {
	case 1:
		return rangeCount(1, nums[0], 1, false)
	case 2:
		return rangeCount(nums[0], nums[1], 1, false)
	case 3:
		return rangeCount(nums[0], nums[2], nums[1], false)
	}
	return 0, false
}

// rangeCount counts first, first+step, … up to last. Bash brace ranges also
// count down; seq with a positive step does not.
func rangeCount(first, last, step float64, bothWays bool) (int, bool) {
	if step == 0 {
		return 0, false
	}
	span := last - first
	if bothWays {
		span = math.Abs(span)
	}
	if span/step < 0 {
		return 0, true
	}
	return int(min(math.Floor(span/step+1e-9)+1, maxLoopCount)), true
}

var arithLoop = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(\w+)\s*=\s*(-?\d{1,9})\s*;\s*(\w+)\s*(<=|<|>=|>)\s*(-?\d{1,9})\s*;\s*(?:(\w+)\s*(\+\+|--)|(\+\+|--)\s*(\w+)|(\w+)\s*(\+=|-=)\s*(\d{1,9}))\s*$`)
})

// arithCount counts the iterations of for ((i=A; i<B; i++)) and its
// variants (<=, >, >=, --, += N, -= N).
func arithCount(header string) (int, bool) {
	m := arithLoop().FindStringSubmatch(header)
	if m == nil {
		return 0, false
	}
	start, _ := strconv.Atoi(m[2])
	limit, _ := strconv.Atoi(m[5])
	step := 1
	switch {
	case m[7] == "--" || m[8] == "--":
		step = -1
	case m[11] == "+=":
		step, _ = strconv.Atoi(m[12])
	case m[11] == "-=":
		step, _ = strconv.Atoi(m[12])
		step = -step
	}
	if step == 0 {
		return 0, false
	}
	var n int
	switch op := m[4]; {
	case op == "<" && step > 0:
		n = ceilDiv(limit-start, step)
	case op == "<=" && step > 0:
		n = ceilDiv(limit-start+1, step)
	case op == ">" && step < 0:
		n = ceilDiv(start-limit, -step)
	case op == ">=" && step < 0:
		n = ceilDiv(start-limit+1, -step)
	default:
		return 0, false // counts away from its limit: forever
	}
	return max(n, 0), true
}

func ceilDiv(a, b int) int {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}
