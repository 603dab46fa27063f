package screen

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func filled(n int, needleAt int) *Screen {
	s := New(DefaultLines)
	for i := range n {
		if i == needleAt {
			fmt.Fprintf(s, "line %d: the \x1b[31mNeedle\x1b[0m 日本 is here\r\n", i)
			continue
		}
		fmt.Fprintf(s, "line %d: build step %d of %d, compiling module %x with flags -O2 -Wall\r\n", i, i, n, i*7919)
	}
	return s
}

func TestSearchFindsNextAndPrevious(t *testing.T) {
	s := New(100)
	for _, l := range []string{"alpha one", "beta", "Alpha two", "gamma", "alpha three"} {
		s.Write([]byte(l + "\r\n"))
	}
	m, ok, total := s.Search("alpha", Match{Line: -1}, true)
	if !ok || total != 3 || m.Line != 4 || m.From != 0 || m.To != 5 {
		t.Fatalf("first search: %+v %v %d", m, ok, total)
	}
	m, _, _ = s.Search("alpha", m, true)
	if m.Line != 2 {
		t.Fatalf("previous (case folded): %+v", m)
	}
	m, _, _ = s.Search("alpha", m, true)
	m, _, _ = s.Search("alpha", m, true) // wraps to the newest
	if m.Line != 4 {
		t.Fatalf("wrap: %+v", m)
	}
	m, _, _ = s.Search("alpha", m, false) // and forward wraps to the oldest
	if m.Line != 0 {
		t.Fatalf("forward wrap: %+v", m)
	}
	if _, _, total := s.Search("Alpha", Match{Line: -1}, true); total != 1 {
		t.Fatalf("a capital makes the search case-sensitive: %d", total)
	}
	if _, ok, _ := s.Search("delta", Match{Line: -1}, true); ok {
		t.Fatal("found what is not there")
	}
}

func TestSearchSpansWideCharactersAndHighlights(t *testing.T) {
	s := New(100)
	s.Write([]byte("x 日本語 y\r\n"))
	m, ok, _ := s.Search("本語 y", Match{Line: -1}, true)
	if !ok || m.From != 4 || m.To != 10 {
		t.Fatalf("wide match: %+v %v", m, ok)
	}
	rows, _ := s.Render(RenderOptions{Width: 20, Height: 1, Find: "本語 y", Current: m})
	if want := "x 日\x1b[0m\x1b[1;4;7m本語 y\x1b[0m"; rows[0] != want {
		t.Fatalf("highlighted row %q, want %q", rows[0], want)
	}
}

func TestScrollForShowsTheMatch(t *testing.T) {
	s := filled(1000, 100)
	m, ok, _ := s.Search("needle", Match{Line: -1}, true)
	if !ok {
		t.Fatal("no match")
	}
	scroll := s.ScrollFor(m.Line, 80, 20)
	rows, _ := s.Render(RenderOptions{Width: 80, Height: 20, Scroll: scroll})
	if !strings.Contains(strings.Join(rows, "\n"), "Needle") {
		t.Fatalf("scroll %d does not show the match:\n%s", scroll, strings.Join(rows, "\n"))
	}
}

func TestSearchAmongTenThousandLinesIsFast(t *testing.T) {
	s := filled(DefaultLines, 3)
	start := time.Now()
	m, ok, total := s.Search("needle", Match{Line: -1}, true)
	if took := time.Since(start); !ok || total != 1 || took > 50*time.Millisecond*5 {
		// Generous under -race on a loaded machine; the benchmark holds
		// the real figure to 50 ms.
		t.Fatalf("search: %+v %v %d in %s", m, ok, total, took)
	}
}

// BenchmarkSearch10000 is the figure the issue asks for: one search through
// 10,000 lines for a line near the top, from the bottom, under 50 ms.
func BenchmarkSearch10000(b *testing.B) {
	s := filled(DefaultLines, 3)
	b.ResetTimer()
	for b.Loop() {
		if _, ok, _ := s.Search("needle", Match{Line: -1}, true); !ok {
			b.Fatal("no match")
		}
	}
	if per := b.Elapsed() / time.Duration(b.N); per > 50*time.Millisecond {
		b.Fatalf("%s a search, over 50 ms", per)
	}
}
