package watch

import (
	"encoding/json"
	"testing"
)

func TestLookupDottedPathsWithIndex(t *testing.T) {
	var doc any
	if err := json.Unmarshal([]byte(`{"data":{"items":[{"price":95.1,"tags":["a","b"]}]},"list":[[1,2],[3,4]]}`), &doc); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"data.items[0].price":   "95.1",
		"data.items[0].tags[1]": "b",
		"list[1][0]":            "3",
		"data.items":            `[{"price":95.1,"tags":["a","b"]}]`,
	} {
		v, err := lookup(doc, path)
		if err != nil || scalarText(v) != want {
			t.Errorf("%s = %v (%v), want %s", path, scalarText(v), err, want)
		}
	}
	for _, bad := range []string{"data.items[1].price", "data.nope", "list[0].x", "a..b", "a[x]", "a]"} {
		if _, err := lookup(doc, bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	if n, ok := numberIn("Price: $1,095.10 today"); !ok || n != 1095.10 {
		t.Errorf("first number = %v %v", n, ok)
	}
}
