//go:build linux

package supervisor

import (
	"encoding/binary"
	"fmt"
	"os"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// logOutput writes p to the output log; what the log cannot take goes to
// the caller inline (proto.FrameData) and is counted as unlogged. Only readOutput calls it.
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
		s.sendFrame(proto.FrameWarning, []byte(fmt.Sprintf(
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
	s.sendFrame(proto.FrameData, msg)
}

// noteUnlogged records in res how much output the log could not keep.
func (s *supervisor) noteUnlogged(res *bgtasks.Result) {
	if s.logErr == nil {
		return
	}
	res.OutputUnloggedBytes = s.unlogged.Load()
	res.LogError = s.logErr.Error()
}
