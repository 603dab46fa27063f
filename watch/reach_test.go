package watch

import "testing"

func TestReachableFromOutside(t *testing.T) {
	for url, want := range map[string]bool{
		"http://127.0.0.1:17465":     false,
		"http://[::1]:80":            false,
		"http://0.0.0.0:80":          false,
		"http://10.1.2.3":            false,
		"http://192.168.1.9:8080":    false,
		"http://100.64.0.1":          false,
		"http://169.254.1.1":         false,
		"http://[::ffff:10.0.0.1]":   false,
		"http://localhost:1":         false,
		"http://buildbox:8080":       false,
		"http://nas.local":           false,
		"http://ci.corp":             false,
		"https://hooks.example.com":  true,
		"http://203.0.113.7:8080":    true,
		"http://[2001:db8::1]:17465": true,
		"::not a url":                false,
	} {
		if got, why := Reachable(url); got != want || why == "" {
			t.Errorf("Reachable(%q) = %v (%s), want %v", url, got, why, want)
		}
	}
}
