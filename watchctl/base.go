package watchctl

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/hangdog/hangdog/receiver"
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

// linkBase is the base URL of every link, trigger and approval alike. The
// receiver is started if it is not running: whatever is in front of it, it
// is what stores a delivery or a decision in this home. Links carry
// $HANGDOG_RECEIVER_URL when it is set — a proxy or a tunnel in front of
// the receiver, the address a sender or a person elsewhere can reach — and
// the receiver's own address otherwise.
func (s *Service) linkBase(ctx context.Context) (string, error) {
	public, err := publicBase()
	if err != nil {
		return "", err
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
