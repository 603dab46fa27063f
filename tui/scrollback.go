package tui

import (
	"sync"

	"github.com/hangdog/hangdog/internal/termtext/screen"
)

// scrollback is the shell's screen, shared by the goroutine that feeds a
// command's output and the model that draws it.
type scrollback struct {
	mu sync.Mutex
	s  *screen.Screen
}

func newScrollback() *scrollback { return &scrollback{s: screen.New(screen.DefaultLines)} }

func (b *scrollback) write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.s.Write(p)
}

// line writes one line of hangdog's own on a line of its own. text is
// rendered by lipgloss from cleaned strings, so its only escapes are SGR.
func (b *scrollback) line(text string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.FreshLine()
	b.s.Write([]byte(text + "\r\n"))
	b.s.FreshLine()
}

// freshLine makes sure what follows starts a line of its own.
func (b *scrollback) freshLine() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.FreshLine()
}

func (b *scrollback) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.Reset()
}

func (b *scrollback) render(o screen.RenderOptions) ([]string, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.s.Render(o)
}

func (b *scrollback) text() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.s.Text()
}

func (b *scrollback) search(query string, from screen.Match, backward bool) (screen.Match, bool, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.s.Search(query, from, backward)
}

func (b *scrollback) scrollFor(line int64, width, height int) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.s.ScrollFor(line, width, height)
}
