package tui

import (
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// mailbox carries messages from the shell's goroutines to the model without
// ever blocking them: posting appends to a list, and the model drains it with
// one waiting command at a time. Output only marks the mailbox dirty, so a
// flood of output becomes at most one redraw per frame.
type mailbox struct {
	mu    sync.Mutex
	msgs  []tea.Msg
	dirty bool
	wake  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// mailMsg is everything the mailbox held when the model looked.
type mailMsg struct {
	msgs  []tea.Msg
	dirty bool // output arrived; redraw the scrollback
}

// frameInterval paces redraws for output: about 60 a second.
const frameInterval = 16 * time.Millisecond

func newMailbox() *mailbox {
	return &mailbox{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (mb *mailbox) post(msg tea.Msg) {
	mb.mu.Lock()
	mb.msgs = append(mb.msgs, msg)
	mb.mu.Unlock()
	mb.signal()
}

func (mb *mailbox) markDirty() {
	mb.mu.Lock()
	was := mb.dirty
	mb.dirty = true
	mb.mu.Unlock()
	if !was {
		mb.signal()
	}
}

func (mb *mailbox) signal() {
	select {
	case mb.wake <- struct{}{}:
	default:
	}
}

// close ends the waiting command for good; the program is quitting.
func (mb *mailbox) close() { mb.once.Do(func() { close(mb.done) }) }

// next waits for mail. Messages are delivered at once; output alone is held
// until notBefore, so redraws stay a frame apart.
func (mb *mailbox) next(notBefore time.Time) tea.Cmd {
	return func() tea.Msg {
		for {
			mb.mu.Lock()
			ready := len(mb.msgs) > 0 || (mb.dirty && !time.Now().Before(notBefore))
			if ready {
				out := mailMsg{msgs: mb.msgs, dirty: mb.dirty}
				mb.msgs, mb.dirty = nil, false
				mb.mu.Unlock()
				return out
			}
			dirty := mb.dirty
			mb.mu.Unlock()
			var timer *time.Timer
			var fire <-chan time.Time
			if dirty {
				timer = time.NewTimer(time.Until(notBefore))
				fire = timer.C
			}
			select {
			case <-mb.wake:
			case <-fire:
			case <-mb.done:
				if timer != nil {
					timer.Stop()
				}
				return nil
			}
			if timer != nil {
				timer.Stop()
			}
		}
	}
}
