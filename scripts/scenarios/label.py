#!/usr/bin/env python3
"""Labels a corpus the honest way: runs every scenario WITHOUT hangdog, under
a PTY nobody types into (as an agent's call), and reports whether and when it
ends by itself. Usage: label.py CORPUS.yaml [--only REGEX] [--max 40]

The result is what a scenario's label must agree with: a `none` must end by
itself before its max, an `input` or `act` must still be running."""
import argparse
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))


def run(s, limit):
    d = tempfile.mkdtemp(prefix="hd-label-")
    try:
        for h in os.listdir(HERE):
            if h.endswith(".py"):
                shutil.copy(os.path.join(HERE, h), d)
        env = {"PATH": os.environ["PATH"], "HOME": d, "LANG": "C.UTF-8", "TERM": "xterm",
               "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@example.invalid",
               "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "b@example.invalid", "GIT_CONFIG_NOSYSTEM": "1"}
        env.update({k: str(v) for k, v in (s.get("env") or {}).items()})
        if s.get("setup"):
            subprocess.run(["bash", "-c", s["setup"]], cwd=d, env=env, check=True, capture_output=True, timeout=60)
        t0 = time.time()
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(d)
            os.execve("/bin/bash", ["bash", "-c", s["command"]], env)
        out = b""
        status = None
        while time.time() - t0 < limit:
            r, _, _ = select.select([fd], [], [], 0.1)
            if r:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    pass
            p, st = os.waitpid(pid, os.WNOHANG)
            if p:
                status = st
                break
        took = time.time() - t0
        if status is None:
            os.killpg(pid, 9)  # the session we started, by its id
            os.waitpid(pid, 0)
            return None, out
        return took, out
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--only")
    ap.add_argument("--max", type=float, default=40)
    a = ap.parse_args()
    items = yaml.safe_load(open(a.corpus))
    for s in items:
        if a.only and not re.search(a.only, s["name"]):
            continue
        if any(not shutil.which(p) for p in s.get("requires") or []):
            print(f"{s['name']:28} SKIP (needs {s['requires']})")
            continue
        took, out = run(s, min(a.max, s["max"]))
        ends = f"ends by itself at {took:.1f}s" if took is not None else f"still running at {min(a.max, s['max']):g}s"
        agree = (took is not None) == (s["label"] == "none")
        tail = out.decode(errors="replace").replace("\r", "").strip().splitlines()[-1:] or [""]
        print(f"{s['name']:28} {s['label']:6} {ends:28} {'ok' if agree else 'LABEL DISAGREES'}  last: {tail[0][:60]!r}",
              flush=True)


if __name__ == "__main__":
    main()
