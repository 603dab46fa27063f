package activity

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// mixedOutput is what commands print: coloured status lines, carriage-return
// progress, UTF-8 and plain log lines.
func mixedOutput(size int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "\x1b[32m✓\x1b[0m compiled github.com/example/pkg%d in %dms\r\n", i, i%900)
		for p := 0; p <= 100; p += 25 {
			fmt.Fprintf(&b, "\r\x1b[K[%-4s] %d%%", bytes.Repeat([]byte("="), p/25), p)
		}
		fmt.Fprintf(&b, "\n2024-05-01T12:00:%02dZ INFO request %08x handled — café ok\n", i%60, i*2654435761)
	}
	return b.Bytes()[:size]
}

// BenchmarkWrite feeds 64 KiB chunks, the size of a busy PTY read.
func BenchmarkWrite(b *testing.B) {
	chunk := mixedOutput(64 << 10)
	tr := NewTracker()
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		tr.Write(chunk)
	}
}

// BenchmarkSnapshot is the check's cost of reading the output state after
// a window's worth of new output.
func BenchmarkSnapshot(b *testing.B) {
	chunk := mixedOutput(64 << 10)
	tr := NewTracker()
	b.ReportAllocs()
	for b.Loop() {
		tr.Write(chunk)
		tr.Snapshot(time.Now())
	}
}

// BenchmarkSnapshotQuiet is a check of a command that printed nothing new.
func BenchmarkSnapshotQuiet(b *testing.B) {
	tr := NewTracker()
	tr.Write(mixedOutput(64 << 10))
	tr.Snapshot(time.Now())
	b.ReportAllocs()
	for b.Loop() {
		tr.Snapshot(time.Now())
	}
}

// BenchmarkSnapshotFewLines is a check after a few lines of new output.
func BenchmarkSnapshotFewLines(b *testing.B) {
	tr := NewTracker()
	tr.Write(mixedOutput(64 << 10))
	line := []byte("Compiling serde v1.0.197\n")
	b.ReportAllocs()
	for b.Loop() {
		tr.Write(line)
		tr.Snapshot(time.Now())
	}
}
