#!/usr/bin/env python3
"""Runs the labelled scenario corpus (scripts/scenarios/corpus.yaml) through
`hangdog run --json` with the local judge and short check timings, and says
for each scenario whether the watchdog did what its label says.

Labels: none (must not be acted on), input (detached within 15 s of blocking,
inputWaitSec at its default) and act (acted on by the agreeChecks-th due check
after its condition starts). Every scenario runs as an agent's call (stdin not
a terminal) in its own temp dir with its own HANGDOG_HOME and
HANGDOG_DEBUG_WATCHDOG=1; the trigger and the moment of the action come from
<home>/logs/watchdog.log. A scenario still running at its max time is stopped
with `hangdog bg kill` and counts as not acted on.

Exit status: 0, or 1 when any `none` scenario was acted on (a false action),
or 2 when the runner itself failed.

Input and none scenarios run twice by default: with the short timings, and as
NAME@default with the default ones, where only the input rule can act in time
(and a none must still not be acted on).

Usage: scripts/bench-judge.py [--bin bin/hangdog] [--markdown] [--only REGEX]
                              [--jobs 2] [--first-check 3] [--interval 3]
                              [--agree 2] [--input-timings both] [--keep] [--list]
"""
import argparse
import concurrent.futures
import dataclasses
import datetime
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "scenarios", "corpus.yaml")
INPUT_DEADLINE = 10.0  # seconds from blocking, with inputWaitSec at its default (issue 11: ≤ 10 s worst)
SLACK = 1.5            # timer and sampling jitter allowed past a due check
POLL = 0.1

# One line of watchdog.log; see supervisor/watchdog/message.go LogLine.
LOG_LINE = re.compile(
    r"^(?P<ts>\S+) task=(?P<task>\S+) check=(?P<check>\d+) (?P<kind>due|fast)"
    r" status=(?P<status>\S+) confidence=(?P<conf>\S+) streak=(?P<streak>\d+)"
    r" trigger=(?P<trigger>\S+) veto=(?P<veto>.*?) action=(?P<action>\S+)"
    r"(?: input=(?P<input>\S+))?(?: reason=(?P<reason>.*?))?(?: evidence=(?P<evidence>.*))?$")


def load_corpus(path):
    try:
        import yaml
    except ImportError:
        sys.exit("bench-judge: PyYAML is needed to read the corpus; apt-get install python3-yaml (or pip install pyyaml)")
    with open(path) as f:
        items = yaml.safe_load(f)
    names = set()
    for s in items:
        for key in ("name", "command", "label", "max"):
            if key not in s:
                sys.exit(f"bench-judge: {path}: scenario {s.get('name', '?')} has no {key}")
        if s["name"] in names:
            sys.exit(f"bench-judge: {path}: scenario {s['name']} is listed twice")
        names.add(s["name"])
        if s["label"] not in ("none", "input", "act"):
            sys.exit(f"bench-judge: {path}: scenario {s['name']}: label must be none, input or act, not {s['label']!r}")
        if s["label"] != "none" and not s.get("trigger"):
            sys.exit(f"bench-judge: {path}: scenario {s['name']}: label {s['label']} needs the trigger(s) expected")
    return items


def parse_time(text):
    """ISO-8601 with up to nanoseconds (Go's) to a Unix time."""
    m = re.match(r"^(.*?T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$", text)
    if not m:
        return None
    base, frac, zone = m.groups()
    zone = "+00:00" if zone == "Z" else zone
    t = datetime.datetime.fromisoformat(base + zone).timestamp()
    return t + (float("0." + frac) if frac else 0.0)


@dataclasses.dataclass
class Outcome:
    name: str
    label: str
    expected: str          # e.g. "input/prompt ≤15s", "act idle ≤9.0s", "none"
    status: str = ""       # exited | detached | killed | killed at max | error | skipped
    trigger: str = ""      # from the log: "input/pager", "idle", …
    action: str = "-"      # background | kill | warn | -
    from_block: float = None
    from_start: float = None
    result: str = ""       # PASS | FALSE | LATE | MISSED | TRIGGER | SKIP | ERROR
    note: str = ""
    checks: int = 0        # log lines of this task
    due_at: list = dataclasses.field(default_factory=list)  # due checks, seconds from start


class Runner:
    def __init__(self, args, stop):
        self.a = args
        self.bin = os.path.abspath(args.bin)
        self.stop = stop
        self.root = tempfile.mkdtemp(prefix="hd-judge-")
        os.chmod(self.root, 0o700)

    # The times at which due checks fire, counted from the task's start.
    def due(self, k):
        return self.a.first_check + (k - 1) * self.a.interval

    def act_deadline(self, condition_at):
        """The agreeChecks-th due check whose window starts at or after the
        condition: the first moment the settings allow an act."""
        k = 1
        while (0.0 if k == 1 else self.due(k - 1)) < condition_at:
            k += 1
        return self.due(k + self.a.agree - 1) + SLACK

    def expected(self, s):
        if s["label"] == "none":
            return "none"
        trig = s["trigger"][0]
        if s["label"] == "input":
            return f"{trig} ≤{INPUT_DEADLINE:g}s"
        return f"act {trig} ≤{self.act_deadline(s.get('condition_at', 0)):.1f}s"

    def env(self, s, home, userhome):
        e = {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": userhome,
            "LANG": "C.UTF-8",
            "HANGDOG_HOME": home,
            "XDG_CONFIG_HOME": os.path.join(userhome, ".config"),
            "XDG_STATE_HOME": os.path.join(userhome, ".local", "state"),
            "HANGDOG_DEBUG_WATCHDOG": "1",
            "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
            "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
            "GIT_CONFIG_NOSYSTEM": "1",
            # The corpora measure the judge: without --profile the agent
            # profile (no pagers, editors that fail, end of input for a read
            # with no prompt) does not prevent the waits they are made of.
            "HANGDOG_TASKS_AGENTPROFILE": "true" if self.a.profile else "false",
        }
        e.update({k: str(v) for k, v in (s.get("env") or {}).items()})
        return e

    def hangdog(self, env, *args, timeout=30):
        return subprocess.run([self.bin, *args], env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout)

    def run(self, s):
        out = Outcome(s["name"], s["label"], self.expected(s))
        missing = [p for p in s.get("requires") or [] if not shutil.which(p)]
        if missing:
            out.status, out.result, out.note = "skipped", "SKIP", "needs " + ", ".join(missing)
            return out
        if self.stop.is_set():
            out.status, out.result, out.note = "skipped", "SKIP", "interrupted"
            return out
        base = os.path.join(self.root, s["name"])
        home, cwd, userhome = (os.path.join(base, d) for d in ("hangdog", "work", "home"))
        for d in (base, home, cwd, userhome):
            os.makedirs(d, mode=0o700)
        env = self.env(s, home, userhome)
        try:
            for helper in os.listdir(os.path.join(HERE, "scenarios")):
                if helper.endswith(".py"):
                    shutil.copy(os.path.join(HERE, "scenarios", helper), cwd)
            if s.get("setup"):
                r = subprocess.run(["bash", "-c", s["setup"]], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                   capture_output=True, text=True, timeout=120)
                if r.returncode != 0:
                    out.status, out.result = "error", "ERROR"
                    out.note = f"setup failed ({r.returncode}): {r.stderr.strip()[:120]}"
                    return out
            self.supervise(s, out, env, home, cwd)
        except Exception as exc:  # a broken scenario must not hide the others' results
            out.status, out.result, out.note = "error", "ERROR", f"{type(exc).__name__}: {exc}"[:160]
        finally:
            self.sweep(env, home)
            if not self.a.keep:
                shutil.rmtree(base, ignore_errors=True)
        return out

    def supervise(self, s, out, env, home, cwd):
        cmd = [self.bin, "run", "--json"]
        if not s.get("default_timings"):
            cmd += ["--set", f"watchdog.firstCheckMin={self.a.first_check / 60:.6g}",
                    "--set", f"watchdog.intervalMin={self.a.interval / 60:.6g}",
                    "--set", f"watchdog.agreeChecks={self.a.agree}"]
        cmd += ["--set", "watchdog.debug=true",
               "--set", "watchdog.decisionModel.source=custom",
               "--set", "watchdog.decisionModel.backend=local"]
        for k, v in (s.get("set") or {}).items():
            cmd += ["--set", f"{k}={v}"]
        cmd += ["--", s["command"]]
        t0 = time.time()
        caller = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, start_new_session=True)
        # Read both pipes while polling, so a chatty caller never blocks on a full pipe.
        streams = {}
        readers = [threading.Thread(target=lambda n, f: streams.__setitem__(n, f.read()), args=(n, f), daemon=True)
                   for n, f in (("stdout", caller.stdout), ("stderr", caller.stderr))]
        for r in readers:
            r.start()
        task_id, output_log = None, None
        changes = []  # (wall time, size) of output.log whenever it grew
        size = 0
        at_max = False
        while caller.poll() is None:
            now = time.time()
            if task_id is None:
                task_id = only_task(home)
                if task_id:
                    output_log = os.path.join(home, "tasks", task_id, "output.log")
            if output_log:
                try:
                    n = os.path.getsize(output_log)
                except OSError:
                    n = size
                if n != size:
                    size = n
                    changes.append((now, n))
            if not at_max and (now - t0 > s["max"] or self.stop.is_set()):
                at_max = True
                tid = task_id or only_task(home)
                if tid:
                    self.hangdog(env, "bg", "kill", tid, "--grace", "2s")
            if at_max and now - t0 > s["max"] + 20:
                os.killpg(caller.pid, signal.SIGKILL)  # the caller we started, stuck past its own kill
                break
            time.sleep(POLL)
        caller.wait()
        for r in readers:
            r.join(timeout=5)
        try:
            report = json.loads(streams.get("stdout") or "")
        except json.JSONDecodeError:
            out.status, out.result = "error", "ERROR"
            out.note = "no JSON from hangdog run: " + (streams.get("stderr") or "").strip()[:140]
            return
        task_id = report.get("task_id") or task_id
        out.status = report.get("status", "?")
        if at_max and out.status == "killed":
            out.status = "killed at max"
        if out.status == "detached" and report.get("left_running"):
            # The command ended by itself and left processes running, which
            # its task keeps: the call came back at the command's own end,
            # with its exit code; no watchdog act.
            out.status = "exited, left running"
        started = task_started(home, task_id) or t0
        lines = read_log(home, task_id)
        out.checks = len(lines)
        out.due_at = [t - started for t in (parse_time(ln["ts"]) for ln in lines if ln["kind"] == "due") if t]
        acted = next((ln for ln in lines if ln["action"] != "none"), None)
        if acted:
            out.action = acted["action"]
            out.trigger = acted["trigger"] + (f"/{acted['input']}" if acted["input"] else "")
            when = parse_time(acted["ts"])
            out.from_start = (when - started) if when else None
            out.note = (acted["reason"] or "")[:90]
        elif out.status in ("detached", "killed") and not at_max:
            out.action = "background" if out.status == "detached" else "kill"
            out.trigger = "?"
            out.from_start = report.get("duration_ms", 0) / 1000
            out.note = (report.get("reason") or "")[:90]
        elif lines:
            last = lines[-1]
            out.note = f"last check: {last['status']} trigger={last['trigger']} veto={last['veto']}"[:90]
        else:
            out.note = "no watchdog checks logged"
        if out.from_start is not None and s["label"] == "input":
            before = [t for t, _ in changes if t - started <= out.from_start]
            block = (before[-1] - started) if before else s.get("blocks_at", 0)
            out.from_block = max(out.from_start - block, 0.0)
        judge(s, out, self)

    def sweep(self, env, home):
        """Stops whatever task of this scenario is still running: a detached
        one keeps running in the background until told."""
        try:
            r = self.hangdog(env, "bg", "ls", "--all", "--json")
            tasks = json.loads(r.stdout or "[]")
        except (subprocess.TimeoutExpired, json.JSONDecodeError):
            tasks = []
        for t in tasks:
            if t.get("state") in ("starting", "running"):
                self.hangdog(env, "bg", "kill", t["id"], "--grace", "2s")
        for t in tasks:  # the supervisor leaves once its command is gone
            pid = t.get("supervisor_pid")
            deadline = time.time() + 10
            while pid and alive(pid) and time.time() < deadline:
                time.sleep(POLL)

    def close(self):
        if not self.a.keep:
            shutil.rmtree(self.root, ignore_errors=True)


def judge(s, out, runner):
    """An input counts as right when it is detached in time, whatever the
    trigger (the caller only needs control back); an act must also come from
    one of the triggers its label names."""
    acted = out.action != "-"
    label = s["label"]
    if label == "none":
        out.result = "FALSE" if acted else "PASS"
        return
    if not acted:
        out.result = "MISSED"
        return
    right = s.get("trigger") or []
    trig_ok = any(out.trigger == t or ("/" not in t and out.trigger.split("/")[0] == t) for t in right)
    if label == "input":
        late = out.from_block is None or out.from_block > INPUT_DEADLINE
        kind = out.trigger.partition("/")[2]
        wanted = [t.partition("/")[2] for t in right]
        if kind not in wanted:
            out.note = f"input kind {kind or '-'}, expected {' or '.join(wanted)}; " + out.note
        out.result = "LATE" if late else "PASS"
        return
    late = out.from_start is None or out.from_start > runner.act_deadline(s.get("condition_at", 0))
    if late:
        out.result = "LATE"
    elif not trig_ok:
        out.result = "TRIGGER"
    else:
        out.result = "PASS"


def with_input_timings(corpus, mode):
    """Adds, for each input scenario, a run under the default check timings
    (name@default): there only the input rule can act within 15 s, which is
    the goal with default settings; with short timings a due-check trigger
    may come first."""
    out = []
    for s in corpus:
        if s["label"] == "act" or mode == "short":
            out.append(s)
            continue
        if mode == "both":
            out.append(s)
        out.append(dict(s, name=s["name"] + "@default", default_timings=True))
    return out


def only_task(home):
    try:
        ids = [d for d in os.listdir(os.path.join(home, "tasks")) if not d.startswith(".")]
    except OSError:
        return None
    return ids[0] if len(ids) == 1 else None


def task_started(home, task_id):
    try:
        with open(os.path.join(home, "tasks", task_id, "meta.json")) as f:
            return parse_time(json.load(f)["started"])
    except (OSError, KeyError, TypeError, ValueError):
        return None


def read_log(home, task_id):
    try:
        with open(os.path.join(home, "logs", "watchdog.log"), errors="replace") as f:
            raw = f.read().splitlines()
    except OSError:
        return []
    lines = []
    for text in raw:
        m = LOG_LINE.match(text)
        if m and m["task"] == task_id:
            lines.append(m.groupdict())
    return lines


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie is gone for our purposes
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def secs(x):
    return "-" if x is None else f"{x:.1f}s"


def actual(o):
    if o.status in ("skipped", "error"):
        return o.status
    return f"{o.status} ({o.trigger})" if o.trigger else o.status


def rows(outcomes):
    return [(o.name, o.expected, actual(o), o.action, f"{secs(o.from_block)} / {secs(o.from_start)}", o.result, o.note)
            for o in outcomes]


LEGEND = (f"result: PASS as labelled; FALSE acted on a `none`; LATE acted after the deadline (input: "
          f"{INPUT_DEADLINE:g} s from blocking; act: the agreeChecks-th due check after its condition starts, "
          f"+{SLACK:g} s); MISSED not acted on by "
          "its max time; TRIGGER acted in time by a trigger the label does not name. time: from blocking (input) / "
          "from the task's start. NAME@default: run with the default check timings.")

HEADER = ("scenario", "expected", "actual", "action", "time (block / start)", "result", "note")


def text_table(outcomes):
    body = rows(outcomes)
    widths = [max(len(r[i]) for r in [HEADER, *body]) for i in range(len(HEADER) - 1)]
    lines = []
    for r in [HEADER, *body]:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1])
    return "\n".join(lines)


def markdown_table(outcomes):
    def cell(c):
        return c.replace("|", "\\|").replace("`", "'")
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows(outcomes)]
    return "\n".join(lines)


def totals(outcomes):
    count = lambda label, *results: sum(1 for o in outcomes if o.label == label and o.result in results)
    ran = [o for o in outcomes if o.result not in ("SKIP", "ERROR")]
    return {
        "scenarios": len(outcomes),
        "ran": len(ran),
        "pass": sum(1 for o in ran if o.result == "PASS"),
        "false actions (acted on a none)": count("none", "FALSE"),
        "missed inputs": count("input", "MISSED"),
        f"late inputs (> {INPUT_DEADLINE:g} s from blocking)": count("input", "LATE"),
        "missed acts": count("act", "MISSED"),
        "late acts": count("act", "LATE"),
        "acts in time by another trigger": sum(1 for o in outcomes if o.result == "TRIGGER"),
        "inputs detached by a trigger other than input": sum(
            1 for o in outcomes if o.label == "input" and o.action != "-" and not o.trigger.startswith("input")),
        "skipped": sum(1 for o in outcomes if o.result == "SKIP"),
        "runner errors": sum(1 for o in outcomes if o.result == "ERROR"),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="bin/hangdog")
    ap.add_argument("--corpus", default=CORPUS)
    ap.add_argument("--markdown", action="store_true", help="also print the table as markdown")
    ap.add_argument("--only", help="run only scenarios whose name or group matches this regex")
    ap.add_argument("--jobs", type=int, default=2, help="scenarios run in parallel (default 2)")
    ap.add_argument("--first-check", type=float, default=3, help="seconds to the first due check (default 3)")
    ap.add_argument("--interval", type=float, default=3, help="seconds between due checks (default 3)")
    ap.add_argument("--agree", type=int, default=2, help="watchdog.agreeChecks (default 2)")
    ap.add_argument("--input-timings", choices=("short", "default", "both"), default="both",
                    help="input scenarios with the short check timings, with the default ones (first check "
                         "after minutes, so only the input rule can act in time), or both (default)")
    ap.add_argument("--keep", action="store_true", help="keep the temp dirs (their path is printed)")
    ap.add_argument("--profile", action="store_true", help="run with the agent profile on, as agents' calls run by default (it prevents many of the corpora's waits)")
    ap.add_argument("--list", action="store_true", help="list the scenarios and exit")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"bench-judge: {a.bin} is not an executable; run `make build` first")
    corpus = with_input_timings(load_corpus(a.corpus), a.input_timings)
    if a.only:
        pick = re.compile(a.only)
        corpus = [s for s in corpus if pick.search(s["name"]) or pick.search(s.get("group", ""))]
    if a.list:
        for s in corpus:
            print(f"{s['name']:28} {s['label']:6} {','.join(s.get('trigger') or ['-']):24} {s['why']}")
        return 0
    stop = threading.Event()

    def interrupted(signum, frame):
        stop.set()  # the workers stop their tasks at their next poll
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    runner = Runner(a, stop)
    began = time.time()
    print(f"bench-judge: {len(corpus)} scenarios, first check {a.first_check:g}s, interval {a.interval:g}s, "
          f"agreeChecks {a.agree} (NAME@default: default timings), inputWaitSec default, local judge, "
          f"{a.jobs} at a time", file=sys.stderr)
    results = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            futures = {pool.submit(runner.run, s): s["name"] for s in corpus}
            try:
                for f in concurrent.futures.as_completed(futures):
                    o = f.result()
                    results[o.name] = o
                    print(f"  {o.result:7} {o.name:28} {actual(o):34} {secs(o.from_block)} / {secs(o.from_start)}",
                          file=sys.stderr)
            except KeyboardInterrupt:
                print("bench-judge: interrupted; stopping the running scenarios", file=sys.stderr)
                raise
    finally:
        if a.keep:
            print(f"bench-judge: temp dirs kept in {runner.root}", file=sys.stderr)
        runner.close()
    outcomes = [results[s["name"]] for s in corpus]
    print(text_table(outcomes))
    print()
    print(LEGEND)
    print()
    t = totals(outcomes)
    for k, v in t.items():
        print(f"{k:48} {v}")
    print(f"{'wall time':48} {time.time() - began:.0f}s")
    firsts = [o.due_at[0] for o in outcomes if o.due_at]
    gaps = [b - a for o in outcomes for a, b in zip(o.due_at, o.due_at[1:])]
    waits = sorted(o.from_block for o in outcomes
                   if o.label == "input" and o.name.endswith("@default") and o.from_block is not None)
    if waits:
        print(f"{'input detached, from blocking (default timings)':48} median {statistics.median(waits):.1f}s, "
              f"worst {waits[-1]:.1f}s over {len(waits)}")
    kinds = [o for o in outcomes if o.label == "input" and o.action != "-"]
    if kinds:
        print(f"{'input kind as labelled':48} {sum(1 for o in kinds if 'input kind' not in o.note)} of {len(kinds)}")
    if firsts:
        print(f"{'first due check (setting %gs)' % a.first_check:48} median {statistics.median(firsts):.1f}s, "
              f"range {min(firsts):.1f}-{max(firsts):.1f}s")
    if gaps:
        print(f"{'due-check spacing (setting %gs)' % a.interval:48} median {statistics.median(gaps):.1f}s, "
              f"range {min(gaps):.1f}-{max(gaps):.1f}s over {len(gaps)} gaps")
    if sum(o.checks for o in outcomes) == 0:
        print("\nwarning: the watchdog logged no checks at all — is it wired into the supervisor? "
              "Every scenario ran to its end or its max time.")
    if a.markdown:
        print()
        print(markdown_table(outcomes))
        print()
        print(LEGEND)
        print()
        print(" · ".join(f"{k}: {v}" for k, v in t.items()))
    if t["false actions (acted on a none)"]:
        return 1
    if t["runner errors"]:
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
