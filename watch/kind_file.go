package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"
)

// fileSource watches one file's content (hash of its normalised text).
// Changes come from inotify on the file's directory — so a file replaced
// by rename, as editors and atomic writers do, is still seen — with the
// interval as the fallback when inotify is unavailable. It is opened by
// openWatched: never through another user's symlink.
type fileSource struct {
	path     string
	interval time.Duration
}

func (f *fileSource) Observe(ctx context.Context, _ *State) (*Observation, error) {
	fh, err := openWatched(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s no longer exists: %w", f.path, ErrGone)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.path, err)
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxBody))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.path, err)
	}
	text, v := normalise(b, "")
	return &Observation{Text: text, JSON: v}, nil
}

// warning says, at create, when other users can change the watched file:
// what the watcher reads may then be theirs.
func (f *fileSource) warning() string {
	why := othersCanWrite(f.path)
	if why == "" {
		return ""
	}
	return why + ", so another user can replace or create " + f.path + " and the watcher will read what they put there (their symlinks are not followed)"
}
