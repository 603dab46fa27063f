package approval

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// BaseURLEnv names the base URL links (approval and trigger) carry when
// something is in front of the receiver (a proxy, a tunnel): the address a
// person or a sender elsewhere reaches it at.
const BaseURLEnv = "HANGDOG_RECEIVER_URL"

// BaseURL returns the base URL under which /approve/ is served (e.g.
// http://127.0.0.1:17465), starting the receiver if it must. It is the
// one place links get their address; the full CLI points it at the
// receiver (cmd/hangdog serve.go), which this package cannot import. Left
// as it is, it reads $HANGDOG_RECEIVER_URL.
var BaseURL = func(context.Context) (string, error) { return BaseURLFromEnv() }

// BaseURLFromEnv is $HANGDOG_RECEIVER_URL, checked.
func BaseURLFromEnv() (string, error) {
	v := strings.TrimSpace(os.Getenv(BaseURLEnv))
	if v == "" {
		return "", errors.New("no receiver to serve the approval page: set $" + BaseURLEnv + " to the base URL where /approve/ is served (e.g. http://127.0.0.1:8765)")
	}
	return checkBase(v)
}

func checkBase(v string) (string, error) {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return "", fmt.Errorf("$%s is %q: use http(s)://HOST[:PORT] with no path, the address in front of hangdog's receiver", BaseURLEnv, v)
	}
	return strings.TrimRight(v, "/"), nil
}
