#!/usr/bin/env python3
"""A harness's shell tool built on `hangdog run --json`, the way any harness
(in any language) can use hangdog without MCP. Python, standard library only.

Each command runs supervised. The text given back to the model says what
happened, the way hangdog's MCP server says it:
  exited    the exit code and output
  detached  the command got stuck or waits for input: it keeps running as a
            background task; the model gets the task id, the reason, the
            output so far and the commands to go on (bg send / wait / kill)
  killed    the reason first; do not blindly re-run
Background-task news (`hangdog events --consumer NAME --json`) is put on top
of the next result, once per event.

usage: harness-example.py [--consumer NAME] [--background] [--drain SECONDS] COMMAND...
  --background      start each COMMAND as a background task (hangdog bg run)
  --drain SECONDS   after the commands, while tasks this harness started are
                    still running, wait up to SECONDS for their news and
                    print it (as a harness's idle loop would)
Prints one JSON object per tool result: {"command", "text", "is_error"}.
"""

import argparse
import json
import os
import subprocess
import sys
import time

HANGDOG = os.environ.get("HANGDOG_BIN", "hangdog")


def news(consumer, wait=None):
    """Undelivered events for this harness, as lines for the model."""
    args = [HANGDOG, "events", "--consumer", consumer, "--json"]
    if wait:
        args += ["--wait", wait]
    p = subprocess.run(args, capture_output=True, text=True)
    lines = []
    for raw in p.stdout.splitlines():
        e = json.loads(raw)
        secs = round(e.get("duration_ms", 0) / 1000)
        what = {
            "exited": f"finished: exit {e.get('exit_code')}",
            "killed": f"was killed: {e.get('reason', '')}",
            "detached": f"was moved to the background: {e.get('reason', '')}",
            "lost": f"was lost: {e.get('reason', '')}",
        }.get(e["kind"], f"{e['kind']}: {e.get('reason', '')}")
        last = (e.get("tail") or "").strip().splitlines()[-3:]
        who = "Background task" if e["kind"] == "exited" else "Task"
        lines.append(f"#{e['seq']} {who} {e['task_id']} (`{e['command']}`) {what} after {secs} s."
                     + "".join(f"\n    {l}" for l in last))
    return lines


def run(command):
    """Run one command supervised; the text for the model and whether it is an error."""
    p = subprocess.run([HANGDOG, "run", "--json", "--", command], capture_output=True, text=True)
    try:
        r = json.loads(p.stdout)
    except ValueError:
        # hangdog itself failed (bad cwd, unwritable home): say so.
        return f"hangdog could not run it: {p.stderr.strip()}", True
    # A long output comes as its head and its end, the cut marked in the
    # middle (output_omitted says which bytes); a full-screen program's as
    # the rows of its last frame (output_screen).
    out = r.get("output", "")
    status, tid = r["status"], r["task_id"]
    if status == "exited":
        return f"exit {r['exit_code']} (task {tid})\n{out}", False
    if status == "detached":
        return (f"still running as background task {tid}: {r.get('reason', '')}\n{out}\n"
                f"Next: hangdog bg send {tid} 'y\\n' answers a prompt; hangdog bg wait {tid}; "
                f"hangdog bg logs {tid}; hangdog bg kill {tid}."), False
    if status == "killed":
        return f"{r.get('reason') or 'killed'}\n{out}", True
    return f"hangdog lost track of task {tid}: {r.get('reason', '')}\n{out}", True


def start_background(command, started):
    p = subprocess.run([HANGDOG, "bg", "run", "--json", "--", command], capture_output=True, text=True)
    if p.returncode != 0:
        return f"could not start it: {p.stderr.strip()}", True
    tid = json.loads(p.stdout)["task_id"]
    started.append(tid)
    return f"started background task {tid}; you will be told when it ends", False


def running(ids):
    """Which of these tasks are still running."""
    p = subprocess.run([HANGDOG, "bg", "ls", "--json", "--all"], capture_output=True, text=True)
    tasks = json.loads(p.stdout or "[]")
    return [t["id"] for t in tasks if t["id"] in ids and t.get("state") in ("starting", "running")]


def drain(consumer, started, seconds):
    """An idle harness: collect news while its background work runs."""
    notes, deadline = [], time.monotonic() + seconds
    while running(started) and time.monotonic() < deadline:
        notes += news(consumer, wait="1s")
    return notes + news(consumer)


def emit(command, text, is_error, consumer):
    notes = news(consumer)
    if notes:
        text = "hangdog notifications:\n" + "\n".join(notes) + "\n\n" + text
    print(json.dumps({"command": command, "text": text, "is_error": is_error}), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--consumer", default=f"harness-example-{os.getpid()}")
    ap.add_argument("--background", action="store_true")
    ap.add_argument("--drain", type=float)
    ap.add_argument("commands", nargs="*")
    args = ap.parse_args()
    news(args.consumer)  # register: from now on, events are kept for us
    started = []
    for command in args.commands:
        text, is_error = start_background(command, started) if args.background else run(command)
        emit(command, text, is_error, args.consumer)
    if args.drain:
        notes = drain(args.consumer, started, args.drain)
        print(json.dumps({"command": None, "text": "\n".join(notes), "is_error": False}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
