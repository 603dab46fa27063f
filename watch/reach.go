package watch

import (
	"net/netip"
	"net/url"
	"strings"
)

// Reachable says whether a URL can be called from another machine, and
// why: loopback, private and link-local addresses, bare host names and
// local-only domains cannot (the agent tells the user, who may need a
// tunnel); a public address or name may, firewall permitting.
func Reachable(raw string) (bool, string) {
	u, err := url.Parse(raw)
	if err != nil {
		return false, "not a URL"
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		switch {
		case ip.IsLoopback():
			return false, "a loopback address: only programs on this machine can call it"
		case ip.IsUnspecified():
			return false, "an unspecified address"
		case ip.IsPrivate() || ip.IsLinkLocalUnicast() || cgnat.Contains(ip):
			return false, "a private address: only machines on your network can call it"
		}
		return true, "a public address: callable from outside if no firewall stands between"
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	switch {
	case h == "localhost" || strings.HasSuffix(h, ".localhost"):
		return false, "localhost: only programs on this machine can call it"
	case !strings.Contains(h, "."):
		return false, "a bare host name: only machines on your network can call it"
	}
	for _, local := range []string{".local", ".lan", ".internal", ".home.arpa", ".localdomain", ".intranet", ".corp"} {
		if strings.HasSuffix(h, local) {
			return false, "a local domain (" + local + "): only machines on your network can call it"
		}
	}
	// Not resolved: a look-up may hang, and what a name resolves to here
	// is not what it resolves to outside.
	return true, "a public name: callable from outside if no firewall stands between"
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// ReachableFromOutside is Reachable without the why.
func ReachableFromOutside(base string) bool {
	ok, _ := Reachable(base)
	return ok
}
