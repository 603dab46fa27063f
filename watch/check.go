package watch

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A path is a dotted path with [index]: data.items[0].price, [2].name.
type pathStep struct {
	key   string
	index int // -1: a key step
}

func parsePath(p string) ([]pathStep, error) {
	var steps []pathStep
	for _, part := range strings.Split(p, ".") {
		if part == "" {
			return nil, errors.New("empty step")
		}
		key, rest, _ := strings.Cut(part, "[")
		if key != "" {
			steps = append(steps, pathStep{key: key, index: -1})
		}
		if rest == "" {
			if strings.Contains(part, "]") {
				return nil, errors.New("] without [")
			}
			continue
		}
		for _, ix := range strings.Split("["+rest, "[")[1:] {
			num, ok := strings.CutSuffix(ix, "]")
			n, err := strconv.Atoi(num)
			if !ok || err != nil || n < 0 {
				return nil, fmt.Errorf("bad index [%s", ix)
			}
			steps = append(steps, pathStep{index: n})
		}
	}
	return steps, nil
}

// lookup follows a path through decoded JSON.
func lookup(v any, path string) (any, error) {
	steps, err := parsePath(path)
	if err != nil {
		return nil, err
	}
	for _, st := range steps {
		switch {
		case st.index >= 0:
			arr, ok := v.([]any)
			if !ok || st.index >= len(arr) {
				return nil, fmt.Errorf("no [%d] at %s", st.index, path)
			}
			v = arr[st.index]
		default:
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("no %q at %s", st.key, path)
			}
			if v, ok = obj[st.key]; !ok {
				return nil, fmt.Errorf("no %q at %s", st.key, path)
			}
		}
	}
	return v, nil
}

// scalarText is a looked-up value as text: strings bare, others as JSON.
func scalarText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

var firstNumber = regexp.MustCompile(`-?\d[\d,]*(\.\d+)?`)

// numberIn reads a number from a value: a JSON number, else the first
// number in the text ("$1,095.10" → 1095.10).
func numberIn(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	m := firstNumber.FindString(scalarText(v))
	if m == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
	return f, err == nil
}

// verdict is a check's answer on one observation: whether its condition
// holds, the value it looked at (for "currently …") and, for keyed
// checks, the keys it saw and those not seen before.
type verdict struct {
	holds bool
	value string
	keys  []string
	fresh []Item
}

// evaluate runs the spec's check on an observation; seen are the keys
// already reported (new-items check).
func evaluate(s *Spec, obs *Observation, seen []string) (verdict, error) {
	var subject any = obs.Text
	if s.Path != "" {
		if obs.JSON == nil {
			return verdict{}, fmt.Errorf("path %s: the content is not JSON", s.Path)
		}
		v, err := lookup(obs.JSON, s.Path)
		if err != nil {
			return verdict{}, err
		}
		subject = v
	}
	switch s.Check {
	case CheckNew:
		items := obs.Items
		if s.Path != "" {
			arr, ok := subject.([]any)
			if !ok {
				return verdict{}, fmt.Errorf("path %s: not an array", s.Path)
			}
			items = jsonItems(arr)
		}
		var v verdict
		for _, it := range items {
			v.keys = append(v.keys, it.Key)
			if !slices.Contains(seen, it.Key) {
				v.fresh = append(v.fresh, it)
			}
		}
		v.holds = len(v.fresh) > 0
		v.value = fmt.Sprintf("%d items", len(items))
		return v, nil
	case CheckAbove, CheckBelow:
		limit, _ := strconv.ParseFloat(strings.TrimSpace(s.Value), 64)
		n, ok := numberIn(subject)
		if !ok {
			return verdict{}, fmt.Errorf("no number in %s", clip(scalarText(subject), 80))
		}
		holds := n > limit
		if s.Check == CheckBelow {
			holds = n < limit
		}
		return verdict{holds: holds, value: strconv.FormatFloat(n, 'f', -1, 64)}, nil
	case CheckContains:
		t := scalarText(subject)
		return verdict{holds: strings.Contains(t, s.Value), value: clip(t, 120)}, nil
	case CheckMatches:
		re, err := regexp.Compile(s.Value)
		if err != nil {
			return verdict{}, err
		}
		t := scalarText(subject)
		m := re.FindString(t)
		return verdict{holds: re.MatchString(t), value: clip(orElse(m, t), 120)}, nil
	case CheckStatus:
		t := strings.TrimSpace(scalarText(subject))
		var holds bool
		for _, want := range strings.Split(s.Value, ",") {
			if strings.TrimSpace(want) == t {
				holds = true
			}
		}
		return verdict{holds: holds, value: t}, nil
	default: // changed
		return verdict{holds: true, value: clip(scalarText(subject), 120)}, nil
	}
}

// edgeTriggered: these checks fire when their condition starts to hold,
// not while it keeps holding (a price that stays below fires once).
func edgeTriggered(check string) bool {
	switch check {
	case CheckAbove, CheckBelow, CheckContains, CheckMatches, CheckStatus:
		return true
	}
	return false
}

// jsonItems keys the elements of a JSON array: an "id", "guid", "key" or
// "url" field when there is one, else the element's own JSON.
func jsonItems(arr []any) []Item {
	out := make([]Item, 0, len(arr))
	for _, e := range arr {
		key := ""
		if obj, ok := e.(map[string]any); ok {
			for _, f := range []string{"id", "guid", "key", "url"} {
				if v, ok := obj[f]; ok {
					key = scalarText(v)
					break
				}
			}
		}
		text := scalarText(e)
		if key == "" {
			key = "sha256:" + hashText(text)[:16]
		}
		out = append(out, Item{Key: key, Title: clip(text, 200)})
	}
	return out
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

func orElse(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
