package watch

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"strings"
)

// rssSource fetches an RSS 2.0 or Atom feed and keys its entries by GUID
// (RSS) or id (Atom), falling back to the link, then the title; the
// new-items check fires once per key.
type rssSource struct{ http httpSource }

func (r *rssSource) Observe(ctx context.Context, last *State) (*Observation, error) {
	body, _, resp, err := r.http.fetch(ctx, last)
	if err != nil {
		return nil, err
	}
	obs := &Observation{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}
	if body == nil {
		obs.Quiet = true
		return obs, nil
	}
	items, err := parseFeed(body)
	if err != nil {
		return nil, fmt.Errorf("feed %s: %w", safeURL(r.http.url), err)
	}
	obs.Items = items
	var keys strings.Builder
	for _, it := range items {
		keys.WriteString(it.Key + "\n")
	}
	obs.Text = keys.String() // the hash covers the set of entries, not their markup
	return obs, nil
}

type feedDoc struct {
	XMLName xml.Name
	Items   []feedEntry `xml:"channel>item"`
	Entries []feedEntry `xml:"entry"`
}

type feedEntry struct {
	GUID  string `xml:"guid"`
	ID    string `xml:"id"`
	Title string `xml:"title"`
	Links []struct {
		Href string `xml:"href,attr"`
		Text string `xml:",chardata"`
	} `xml:"link"`
}

func parseFeed(b []byte) ([]Item, error) {
	var doc feedDoc
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = false
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not an RSS or Atom feed: %w", err)
	}
	entries := append(doc.Items, doc.Entries...)
	out := make([]Item, 0, len(entries))
	for _, e := range entries {
		link := ""
		for _, l := range e.Links {
			if link = strings.TrimSpace(orElse(l.Href, l.Text)); link != "" {
				break
			}
		}
		key := strings.TrimSpace(orElse(e.GUID, orElse(e.ID, orElse(link, e.Title))))
		if key == "" {
			continue
		}
		out = append(out, Item{Key: key, Title: clip(e.Title, 200), Link: link})
	}
	return out, nil
}
