//go:build linux

package supervisor

import (
	"encoding/binary"
	"fmt"
	"os"

	"github.com/hangdog/hangdog/bgtasks"
)

// frameData carries output the log could not take (a full disk): an 8-byte
// big-endian count of the bytes output.log held before it, then the bytes.
// From the first failed write on, the log is left as the exact prefix it is
// and every later byte goes to the caller this way, so a caller still gets
// all of its command's output, in order, from memory.
const frameData byte = 'O'

// logOutput writes p to the output log; what the log cannot take goes to
// the caller inline and is counted as unlogged. Only readOutput calls it.
func (s *supervisor) logOutput(p []byte) {
	if s.logErr == nil {
		n, err := s.output.Write(p)
		s.written.Add(int64(n))
		if err == nil {
			return
		}
		s.logErr = err
		p = p[n:]
		// The warning goes to the caller (supervisor.log may be on the same
		// full disk) and later into the result.
		s.sendFrame(frameWarning, []byte(fmt.Sprintf(
			"the output log could not be written (%v): output after its first %d bytes reaches this caller only and is not kept in %s; free space on that file system to keep the output of later runs",
			err, s.written.Load(), s.output.Name())))
		fmt.Fprintln(os.Stderr, "hangdog supervisor: write output log:", err)
	}
	if len(p) == 0 {
		return
	}
	s.unlogged.Add(int64(len(p)))
	msg := make([]byte, 8+len(p))
	binary.BigEndian.PutUint64(msg, uint64(s.written.Load()))
	copy(msg[8:], p)
	s.sendFrame(frameData, msg)
}

// noteUnlogged records in res how much output the log could not keep.
func (s *supervisor) noteUnlogged(res *bgtasks.Result) {
	if s.logErr == nil {
		return
	}
	res.OutputUnloggedBytes = s.unlogged.Load()
	res.LogError = s.logErr.Error()
}
