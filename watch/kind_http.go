package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// fetchTimeout bounds one fetch, connection to last byte.
const fetchTimeout = 30 * time.Second

// httpClient is shared by every http and rss watcher in a process; it
// follows redirects (at most 10, net/http's default) and keeps no cookies.
var httpClient = &http.Client{Timeout: fetchTimeout}

// httpSource fetches a URL, honouring ETag and Last-Modified: a 304 is a
// quiet check that costs the server nothing.
type httpSource struct {
	url     string
	timeout time.Duration // 0: fetchTimeout (tests shorten it)
}

func (h *httpSource) Observe(ctx context.Context, last *State) (*Observation, error) {
	body, ctype, resp, err := h.fetch(ctx, last)
	if err != nil {
		return nil, err
	}
	obs := &Observation{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}
	if resp.StatusCode == http.StatusNotModified {
		obs.Quiet = true
		return obs, nil
	}
	obs.Text, obs.JSON = normalise(body, ctype)
	return obs, nil
}

// fetch GETs the URL with the stored validators and sorts failures into
// unreachable (skipped) and gone (counted).
func (h *httpSource) fetch(ctx context.Context, last *State) ([]byte, string, *http.Response, error) {
	timeout := h.timeout
	if timeout == 0 {
		timeout = fetchTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url, nil)
	if err != nil {
		return nil, "", nil, fmt.Errorf("GET %s: %w", safeURL(h.url), err)
	}
	req.Header.Set("User-Agent", "hangdog-watch/1")
	if last != nil && last.Baselined {
		if last.ETag != "" {
			req.Header.Set("If-None-Match", last.ETag)
		}
		if last.LastModified != "" {
			req.Header.Set("If-Modified-Since", last.LastModified)
		}
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		// A *url.Error repeats the whole URL, query and password included;
		// keep only what went wrong.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		var nerr net.Error
		if errors.As(err, &nerr) || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil || isConnErr(err) {
			return nil, "", nil, fmt.Errorf("GET %s: %v: %w", safeURL(h.url), err, ErrUnreachable)
		}
		return nil, "", nil, fmt.Errorf("GET %s: %w", safeURL(h.url), err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified:
		return nil, "", resp, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return nil, "", nil, fmt.Errorf("GET %s: %s: %w", safeURL(h.url), resp.Status, ErrUnreachable)
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return nil, "", nil, fmt.Errorf("GET %s: %s: %w", safeURL(h.url), resp.Status, ErrGone)
	case resp.StatusCode >= 400:
		return nil, "", nil, fmt.Errorf("GET %s: %s", safeURL(h.url), resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, "", nil, fmt.Errorf("GET %s: reading the body: %v: %w", safeURL(h.url), err, ErrUnreachable)
	}
	return body, resp.Header.Get("Content-Type"), resp, nil
}

func isConnErr(err error) bool {
	var op *net.OpError
	return errors.As(err, &op)
}
