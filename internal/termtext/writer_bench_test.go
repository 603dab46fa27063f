package termtext

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// typicalOutput is what build tools and test runners print: coloured lines,
// carriage-return progress and the odd multi-byte character.
func typicalOutput(size int) []byte {
	var b bytes.Buffer
	for b.Len() < size {
		b.WriteString("\x1b[32m✓\x1b[0m compiling package github.com/example/module/internal/thing (12 files)\r\n")
		for p := 0; p <= 100; p += 10 {
			b.WriteString("\r\x1b[K[")
			b.WriteString(strings.Repeat("=", p/10))
			b.WriteString("] ")
		}
		b.WriteString("\n")
		b.WriteString("plain log line with a tab\tand some more text to make it a realistic width\n")
	}
	return b.Bytes()
}

// hostileOutput tries to make the Writer do far more work than it reads.
func hostileOutput(size int) []byte {
	var b bytes.Buffer
	for b.Len() < size {
		b.WriteString("x\x1b[2Kx\x1b[9999Gy\x1b[1G\x1b[K\x1b[9999Cz\r")
	}
	return b.Bytes()
}

func benchmarkWriter(b *testing.B, in []byte) {
	w := NewWriter(io.Discard)
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := w.Write(in); err != nil {
			b.Fatal(err)
		}
	}
	_ = w.Close()
}

func BenchmarkWriterTypical(b *testing.B) { benchmarkWriter(b, typicalOutput(1<<20)) }
func BenchmarkWriterPlainASCII(b *testing.B) {
	benchmarkWriter(b, bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog 0123456789\n"), 20000))
}
func BenchmarkWriterHostile(b *testing.B) { benchmarkWriter(b, hostileOutput(1<<20)) }

// Streaming any amount of output must not grow memory: once warmed up, a
// Write allocates nothing, so a 2 GB log costs what a 2 MB one does.
func TestWriterSteadyStateAllocatesNothing(t *testing.T) {
	for name, in := range map[string][]byte{
		"typical":   typicalOutput(64 << 10),
		"long line": bytes.Repeat([]byte("y"), 3*maxLineCells),
		"hostile":   hostileOutput(16 << 10),
	} {
		w := NewWriter(io.Discard)
		_, _ = w.Write(in)
		allocs := testing.AllocsPerRun(5, func() {
			_, _ = w.Write(in)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per Write after warm-up, want 0", name, allocs)
		}
	}
}
