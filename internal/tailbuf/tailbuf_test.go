package tailbuf

import (
	"bytes"
	"math/rand"
	"testing"
)

func TestKeepsTheLastBytesWhateverTheWriteSizes(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, capacity := range []int{1, 7, 64, 1000} {
		b := New(capacity)
		var all []byte
		for i := 0; i < 200; i++ {
			p := make([]byte, rng.Intn(3*capacity+2))
			rng.Read(p)
			b.Write(p)
			all = append(all, p...)
			got, dropped := b.Bytes()
			want := all[max(0, len(all)-capacity):]
			if !bytes.Equal(got, want) || dropped != int64(len(all)-len(want)) || b.Total() != int64(len(all)) {
				t.Fatalf("cap %d after %d writes: got %d bytes (dropped %d), want %d (dropped %d)", capacity, i+1, len(got), dropped, len(want), len(all)-len(want))
			}
		}
	}
}

func TestZeroCapacityKeepsNothingButCounts(t *testing.T) {
	b := New(0)
	b.Write([]byte("hello"))
	got, dropped := b.Bytes()
	if len(got) != 0 || dropped != 5 || b.Total() != 5 {
		t.Errorf("got %q dropped %d total %d", got, dropped, b.Total())
	}
}
