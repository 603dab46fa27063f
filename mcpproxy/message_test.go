package mcpproxy

import (
	"encoding/json"
	"testing"
)

func TestIDKeyTellsStringsFromNumbersAndOneSpellingFromAnother(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`1`, `1.0`, true},
		{`1`, `1e0`, true},
		{`1`, `"1"`, false},
		{`"a"`, `"a"`, true},
		{`"a"`, `"b"`, false},
		{`12345678901234567890`, `12345678901234567890`, true},
		{`12345678901234567890`, `12345678901234567891`, false},
	} {
		ka, kb := idKey(json.RawMessage(tc.a)), idKey(json.RawMessage(tc.b))
		if ka == "" || kb == "" || (ka == kb) != tc.same {
			t.Errorf("idKey(%s)=%q, idKey(%s)=%q: same=%v, want %v", tc.a, ka, tc.b, kb, ka == kb, tc.same)
		}
	}
	for _, none := range []string{``, `null`, `{}`, `[1]`, `nonsense`} {
		if k := idKey(json.RawMessage(none)); k != "" {
			t.Errorf("idKey(%s) = %q, want none", none, k)
		}
	}
}

func TestWarningIsAppendedToAResultOnly(t *testing.T) {
	got := withWarning([]byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1}}}`+"\n"), "slow")
	var m struct {
		ID     int `json:"id"`
		Result struct {
			Content []struct{ Type, Text string }
			Struct  map[string]int `json:"structuredContent"`
		}
	}
	if err := json.Unmarshal(got, &m); err != nil || got[len(got)-1] != '\n' {
		t.Fatalf("withWarning gave %q: %v", got, err)
	}
	if m.ID != 3 || len(m.Result.Content) != 2 || m.Result.Content[1].Type != "text" || m.Result.Content[1].Text != "slow" || m.Result.Struct["a"] != 1 {
		t.Errorf("withWarning gave %s", got)
	}
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}` + "\n",
		`{"jsonrpc":"2.0","id":3,"result":{}}` + "\n",
		`not json` + "\n",
	} {
		if out := withWarning([]byte(in), "slow"); string(out) != in {
			t.Errorf("withWarning(%q) = %q, want it as it came", in, out)
		}
	}
}
