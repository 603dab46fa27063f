package binstruct

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"
)

type inner struct {
	Name  string
	Ratio float64
	On    bool
}

type sample struct {
	S       string
	Strs    []string
	B       bool
	I       int
	I64     int64
	U16     uint16
	U64     uint64
	F       float64
	T       time.Time
	TP      *time.Time
	NilTP   *time.Time
	In      inner
	Ins     []inner
	Secret  []string `json:"-"`
	Renamed string   `json:"renamed,omitempty"`
	hidden  string
}

func full() sample {
	at := time.Unix(1_800_000_000, 123_456_789)
	later := at.Add(90 * time.Minute)
	return sample{
		S: "héllo\x00\xff", Strs: []string{"a", "", "ccc"}, B: true,
		I: -42, I64: -1 << 62, U16: 65535, U64: 1<<64 - 1, F: -0.125,
		T: at, TP: &later,
		In:      inner{"in", 0.5, true},
		Ins:     []inner{{"x", 1.5, false}, {"y", -2, true}},
		Renamed: "tagged, still sent",
	}
}

func TestRoundTrip(t *testing.T) {
	want := full()
	want.Secret = []string{"API_KEY=s3cret"}
	want.hidden = "unexported"
	b, err := Append(nil, want)
	if err != nil {
		t.Fatal(err)
	}
	var got sample
	if err := Decode(b, &got); err != nil {
		t.Fatal(err)
	}
	want.Secret, want.hidden = nil, "" // neither travels
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
	if reflect.DeepEqual(got, sample{}) {
		t.Fatal("decoded a zero value")
	}
}

func TestSecretFieldsNeverTravel(t *testing.T) {
	v := full()
	v.Secret = []string{"TOKEN=do-not-send"}
	b, err := Append(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("do-not-send")) {
		t.Fatalf("a json:\"-\" field was encoded: %q", b)
	}
}

// Every cut of a valid encoding is refused, never misread or panicked on.
func TestTruncatedInputIsRefused(t *testing.T) {
	b, err := Append(nil, full())
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(b) {
		var got sample
		if err := Decode(b[:n], &got); !errors.Is(err, ErrTruncated) {
			t.Fatalf("decode of the first %d of %d bytes: %v, want ErrTruncated", n, len(b), err)
		}
	}
	var got sample
	if err := Decode(append(b, 0), &got); err == nil {
		t.Fatal("a trailing byte was accepted")
	}
}

func TestHugeCountIsRefusedWithoutAllocating(t *testing.T) {
	var v struct{ Strs []string }
	// A count of 2^40 followed by nothing.
	b := []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x20}
	if err := Decode(b, &v); !errors.Is(err, ErrTruncated) {
		t.Fatalf("got %v, want ErrTruncated", err)
	}
}

func TestUnsupportedKindsAreErrors(t *testing.T) {
	if _, err := Append(nil, struct{ M map[string]int }{map[string]int{"a": 1}}); err == nil {
		t.Error("a map was encoded")
	}
	if _, err := Append(nil, 3); err == nil {
		t.Error("a non-struct was encoded")
	}
	var m struct{ M map[string]int }
	if err := Decode([]byte{0}, &m); err == nil {
		t.Error("a map was decoded")
	}
	if err := Decode(nil, m); err == nil {
		t.Error("decoded into a non-pointer")
	}
}

func TestShapeTellsLayoutsApart(t *testing.T) {
	type a struct {
		X string
		Y int
	}
	type sameAsA struct {
		X string
		Y int
	}
	type swapped struct {
		Y int
		X string
	}
	type renamed struct {
		X string
		Z int
	}
	type retyped struct {
		X string
		Y uint
	}
	type longer struct {
		X string
		Y int
		W bool
	}
	type nested struct{ In []a }
	type nestedOther struct{ In []longer }
	if Shape(a{}) != Shape(sameAsA{}) {
		t.Error("identical layouts differ")
	}
	for name, other := range map[string]any{"swapped": swapped{}, "renamed": renamed{}, "retyped": retyped{}, "longer": longer{}} {
		if Shape(a{}) == Shape(other) {
			t.Errorf("%s layout has the same shape", name)
		}
	}
	if Shape(nested{}) == Shape(nestedOther{}) {
		t.Error("a change inside a nested slice went unnoticed")
	}
}
