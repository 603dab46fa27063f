package approval

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"

	"github.com/hangdog/hangdog/internal/peerproc"
	"github.com/hangdog/hangdog/watch"
)

// hangdogExes are hangdog's programs (hangdog-watch, the watchers' runner,
// starts command watchers' commands); a supervisor's comm is cut to 15
// bytes by the kernel.
var hangdogExes = map[string]bool{"hangdog": true, "hangdog-full": true, "hangdog-supervisor": true, "hangdog-supervi": true, "hangdog-watch": true}

// refusal says why this request may not see or decide the approval, or
// "" when it may. A request from another machine is a person's. One from
// this machine must come from a process found holding the connection (a
// browser keeps it open), and neither it nor any of its ancestors may be
// a hangdog program, run inside a hangdog task (by its environment or by
// the task mark, which a process that left the task's environment,
// session and tree still carries: peerproc.MarkTask), or be the agent
// that asked. What cannot be checked is refused: the page is for people,
// who can open it elsewhere, and an agent must not find a way round.
func refusal(r *http.Request, a *watch.Approval) string {
	client, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return "the request's address " + r.RemoteAddr + " could not be read"
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	var server netip.AddrPort
	if local != nil {
		server, _ = netip.ParseAddrPort(local.String())
	}
	if !peerproc.Local(client.Addr()) {
		return "" // another machine: a person
	}
	if !peerproc.Supported {
		return "requests from this machine cannot be checked here (that needs Linux); open the link on another device"
	}
	c, err := peerproc.Lookup(client, server)
	switch {
	case err != nil:
		return "the process that sent it could not be found: " + err.Error()
	case !c.Found:
		return "the process that sent it could not be found"
	case c.UID != uint32(os.Getuid()):
		return fmt.Sprintf("it was sent by a process of another user (uid %d)", c.UID)
	case c.Inode == 0:
		return "its sender closed the connection before it could be checked (a browser keeps it open)"
	}
	pids := c.Holders
	if len(pids) == 0 {
		// Held by a process whose descriptors are hidden (not dumpable):
		// any of those might be it, so none of them may be hangdog's.
		pids = c.Unreadable
		if len(pids) == 0 {
			return "no process holds the connection"
		}
	}
	for _, pid := range pids {
		if why := hangdogProcess(pid, a); why != "" {
			return why
		}
	}
	return ""
}

// hangdogProcess says how pid belongs to hangdog or to the agent that
// asked, or "".
func hangdogProcess(pid int, a *watch.Approval) string {
	anc := peerproc.Ancestry(pid)
	if len(anc) == 0 {
		return fmt.Sprintf("process %d could not be read", pid)
	}
	who := fmt.Sprintf("%s (pid %d)", anc[0].ExeBase(), anc[0].PID)
	for i, p := range anc {
		what := fmt.Sprintf("%s (pid %d)", p.ExeBase(), p.PID)
		switch {
		case a.AgentPID != 0 && p.PID == a.AgentPID && p.Start == a.AgentStart && i == 0:
			return who + " is the agent that asked"
		case a.AgentPID != 0 && p.PID == a.AgentPID && p.Start == a.AgentStart:
			return who + " was started by the agent that asked, " + what
		case hangdogExes[p.ExeBase()] || hangdogExes[p.Comm]:
			if i == 0 {
				return who + " is hangdog itself"
			}
			return who + " runs under " + what
		case p.TaskID != "":
			return who + " runs in hangdog task " + p.TaskID
		}
	}
	// A process that left its task (env -i, setsid, its supervisor killed)
	// still carries the mark. Looked at after the rest, which name the
	// task or the program; every ancestor, though a marked process's
	// children are all marked: root could unmark one, and root may do
	// anything.
	for i, p := range anc {
		if p.TaskMark {
			if i == 0 {
				return who + " was started by a hangdog task: it carries the task mark (a hard file-lock limit of 0, which it cannot lift)"
			}
			return fmt.Sprintf("%s runs under %s (pid %d), which was started by a hangdog task: it carries the task mark", who, p.ExeBase(), p.PID)
		}
	}
	return ""
}
