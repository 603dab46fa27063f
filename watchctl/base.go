package watchctl

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/hangdog/hangdog/receiver"
	"github.com/hangdog/hangdog/watch"
)

// ReceiverURLEnv names the base URL links (approval and trigger) carry when
// something is in front of the receiver (a proxy, a tunnel): the address a
// person or a sender elsewhere reaches it at.
const ReceiverURLEnv = "HANGDOG_RECEIVER_URL"

// publicBase is $HANGDOG_RECEIVER_URL, checked, or "" when it is unset. A
// link is checked against it before anything is created, so a malformed
// value is refused first.
func publicBase() (string, error) {
	v := strings.TrimSpace(os.Getenv(ReceiverURLEnv))
	if v == "" {
		return "", nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return "", fmt.Errorf("$%s is %q: use http(s)://HOST[:PORT] with no path, the address in front of hangdog's receiver", ReceiverURLEnv, v)
	}
	return strings.TrimRight(v, "/"), nil
}

// checkBase is checked before a link watcher is created, so a link that
// would be unusable is refused first: a malformed $HANGDOG_RECEIVER_URL,
// or none with serve.sink set.
func (s *Service) checkBase() error {
	public, err := publicBase()
	if err != nil {
		return err
	}
	if public == "" && s.sinkSet() {
		return errNoFleetBase
	}
	return nil
}

var errNoFleetBase = fmt.Errorf("serve.sink is set, so links are called at the fleet receiver: set $%s to its address (http(s)://HOST[:PORT]), or unset serve.sink for this machine's receiver", ReceiverURLEnv)

// linkBase is the base URL of every link, trigger and approval alike,
// made callable. Links carry $HANGDOG_RECEIVER_URL when it is set — a
// proxy or a tunnel in front of the receiver, or the fleet receiver, the
// address a sender or a person elsewhere can reach — and the receiver's
// own address otherwise. With serve.sink set the fleet receiver takes
// the link's deliveries: the link is registered there (unless it is
// paused) and no receiver runs here. Otherwise the receiver here is
// started if it is not running: whatever is in front of it, it is what
// stores a delivery or a decision in this home.
func (s *Service) linkBase(ctx context.Context, w *watch.Watcher, owner string) (string, error) {
	public, err := publicBase()
	if err != nil {
		return "", err
	}
	if s.sinkSet() {
		if public == "" {
			return "", errNoFleetBase
		}
		if !w.State.Paused {
			if err := s.register(ctx, w, owner); err != nil {
				return "", err
			}
		}
		return public, nil
	}
	local, err := receiver.Ensure(ctx, s.store)
	if err != nil {
		return "", err
	}
	if public != "" {
		return public, nil
	}
	return local, nil
}
