#!/usr/bin/env python3
"""Benchmarks hangdog against `script -qec CMD /dev/null` in the same run.

Three measures, each reported as a ratio to script's:
  start-up     wall time of `hangdog run -- true` (median of interleaved runs)
  throughput   500 MB of output through the PTY into a file
  idle memory  resident set of the supervisor of an idle task (script: its own RSS)

Usage: scripts/bench.py [--bin bin/hangdog] [--runs 40] [--mb 500]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd, env, stdout=subprocess.DEVNULL):
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, stdout=stdout,
                   stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="bin/hangdog")
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--mb", type=int, default=500)
    a = ap.parse_args()
    hd = os.path.abspath(a.bin)
    if not shutil.which("script"):
        sys.exit("bench: `script` (util-linux) is needed as the peer; apt-get install util-linux")
    tmp = tempfile.mkdtemp(prefix="hdb")
    env = dict(os.environ, HANGDOG_HOME=os.path.join(tmp, "h"), XDG_CONFIG_HOME=os.path.join(tmp, "c"))
    try:
        # Warm both (page cache, first-run costs) before measuring.
        for _ in range(3):
            timed([hd, "run", "--", "true"], env)
            timed(["script", "-qec", "true", "/dev/null"], env)
        hd_t, sc_t = [], []
        for _ in range(a.runs):  # interleaved so machine noise hits both alike
            hd_t.append(timed([hd, "run", "--", "true"], env))
            sc_t.append(timed(["script", "-qec", "true", "/dev/null"], env))
        hd_m, sc_m = statistics.median(hd_t) * 1e3, statistics.median(sc_t) * 1e3
        print(f"start-up   hangdog run -- true   {hd_m:7.2f} ms   script {sc_m:7.2f} ms   ratio {hd_m / sc_m:5.2f}  (goal <= 0.50)")

        gen = f"head -c {a.mb}M /dev/zero"
        out = os.path.join(tmp, "out")
        rates = {}
        for name, cmd in (("hangdog", [hd, "run", gen]), ("script", ["script", "-qec", gen, "/dev/null"])):
            best = 0.0
            for _ in range(2):
                with open(out, "wb") as f:
                    dt = timed(cmd, env, stdout=f)
                size = os.path.getsize(out)
                if size < a.mb << 20:
                    sys.exit(f"bench: {name} wrote {size} bytes, want {a.mb << 20}")
                best = max(best, (a.mb) / dt)
            rates[name] = best
        print(f"throughput {a.mb} MB through the PTY  hangdog {rates['hangdog']:6.1f} MB/s   script {rates['script']:6.1f} MB/s   ratio {rates['hangdog'] / rates['script']:5.2f}  (goal >= 1.00)")

        bg = subprocess.run([hd, "bg", "run", "--json", "--", "sleep", "60"], env=env, capture_output=True, text=True, check=True)
        import json
        tid = json.loads(bg.stdout)["task_id"]
        time.sleep(1.5)
        meta = json.load(open(os.path.join(env["HANGDOG_HOME"], "tasks", tid, "meta.json")))
        sup_kb = rss_kb(meta["supervisor_pid"])
        sc = subprocess.Popen(["script", "-qec", "sleep 60", "/dev/null"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        time.sleep(1.5)
        sc_kb = rss_kb(sc.pid)
        sc.kill()
        sc.wait()
        subprocess.run([hd, "bg", "kill", tid], env=env, capture_output=True)
        print(f"idle RSS   supervisor {sup_kb / 1024:6.1f} MB   script {sc_kb / 1024:6.1f} MB   ratio {sup_kb / sc_kb:5.2f}  (goal: supervisor <= 8 MB)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
