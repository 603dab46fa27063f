#!/usr/bin/env python3
"""Benchmarks hangdog against `script -qec CMD /dev/null` in the same run.

Three measures, each reported as a ratio to script's:
  start-up     wall time of `hangdog run -- true` (median of interleaved runs)
  throughput   500 MB of output through the PTY into a file
  idle memory  resident set of the supervisor of an idle task (script: its own RSS)

Usage: scripts/bench.py [--bin bin/hangdog] [--runs 40] [--mb 500]
                        [--only startup,throughput,rss] [--state-dir DIR]

hangdog's registry (a fresh home, removed afterwards) goes where a user's
does, under $XDG_STATE_HOME or ~/.local/state, not /tmp: every run creates
its task there, so the start-up measured includes the filesystem a user's
tasks live on. --state-dir puts it somewhere else.

Throughput runs are interleaved (hangdog, script, script, hangdog, ...) so the
machine's noise hits both alike; the ratio is best against best, and the
range of the per-round ratios is printed beside it.
"""
import argparse
import json
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
    ap.add_argument("--tp-rounds", type=int, default=3, help="interleaved throughput rounds")
    ap.add_argument("--only", default="startup,throughput,rss",
                    help="comma-separated parts to run: startup, throughput, rss")
    ap.add_argument("--state-dir", default=os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state"),
                    help="where the benchmark's hangdog home is made (default: where hangdog's own is)")
    a = ap.parse_args()
    parts = set(a.only.split(","))
    unknown = parts - {"startup", "throughput", "rss"}
    if unknown:
        sys.exit(f"bench: unknown part(s) {', '.join(sorted(unknown))}; use startup, throughput, rss")
    hd = os.path.abspath(a.bin)
    if not shutil.which("script"):
        sys.exit("bench: `script` (util-linux) is needed as the peer; apt-get install util-linux")
    tmp = tempfile.mkdtemp(prefix="hdb")
    os.makedirs(a.state_dir, mode=0o700, exist_ok=True)
    home = tempfile.mkdtemp(prefix="hangdog-bench-", dir=a.state_dir)
    print(f"hangdog home for the benchmark: {home}")
    env = dict(os.environ, HANGDOG_HOME=os.path.join(home, "h"), XDG_CONFIG_HOME=os.path.join(tmp, "c"))
    try:
        if "startup" in parts:
            startup(hd, env, a.runs)
        if "throughput" in parts:
            throughput(hd, env, tmp, a.mb, a.tp_rounds)
        if "rss" in parts:
            idle_rss(hd, env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)


def create_latency_us(home):
    """Median time to create a file in the benchmark's home. Every run creates
    a task directory and three files there (script creates none), so a slow
    filesystem shows up in hangdog's start-up and not in script's: on a
    filesystem without a journal, ext4 skips recently deleted inodes when it
    allocates one, and for a minute or more after many deletions nearby (a
    test suite's temporary files) creating a file was measured at 0.2-0.8 ms
    here instead of 20-40 us."""
    d = os.path.join(home, "create-probe")
    os.makedirs(d, exist_ok=True)
    ts = []
    for i in range(40):
        t0 = time.perf_counter()
        os.close(os.open(os.path.join(d, f"f{i}"), os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600))
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e6


def startup(hd, env, runs):
    print(f"filesystem: creating a file in the home takes {create_latency_us(env['HANGDOG_HOME'] + '-probe'):.0f} us (median of 40)")
    # Warm both (page cache, first-run costs) before measuring.
    for _ in range(3):
        timed([hd, "run", "--", "true"], env)
        timed(["script", "-qec", "true", "/dev/null"], env)
    hd_t, sc_t = [], []
    for _ in range(runs):  # interleaved so machine noise hits both alike
        hd_t.append(timed([hd, "run", "--", "true"], env))
        sc_t.append(timed(["script", "-qec", "true", "/dev/null"], env))
    hd_m, sc_m = statistics.median(hd_t) * 1e3, statistics.median(sc_t) * 1e3
    print(f"start-up   hangdog run -- true   {hd_m:7.2f} ms   script {sc_m:7.2f} ms   ratio {hd_m / sc_m:5.2f}  (goal <= 0.50)")


def throughput(hd, env, tmp, mb, rounds):
    gen = f"head -c {mb}M /dev/zero"
    out = os.path.join(tmp, "out")
    cmds = {"hangdog": [hd, "run", gen], "script": ["script", "-qec", gen, "/dev/null"]}
    rates = {"hangdog": [], "script": []}
    for r in range(rounds):
        order = ("hangdog", "script") if r % 2 == 0 else ("script", "hangdog")
        for name in order:
            # Earlier runs' output (and hangdog's logs of it) is written back
            # now, not by the kernel during a later timed run.
            os.sync()
            with open(out, "wb") as f:
                dt = timed(cmds[name], env, stdout=f)
            size = os.path.getsize(out)
            if size < mb << 20:
                sys.exit(f"bench: {name} wrote {size} bytes, want {mb << 20}")
            rates[name].append(mb / dt)
    hd_best, sc_best = max(rates["hangdog"]), max(rates["script"])
    pair = [h / s for h, s in zip(rates["hangdog"], rates["script"])]
    print(f"throughput {mb} MB through the PTY  hangdog {hd_best:6.1f} MB/s   script {sc_best:6.1f} MB/s   "
          f"ratio {hd_best / sc_best:5.2f}  (goal >= 1.00; per round {min(pair):.2f}-{max(pair):.2f})")


def idle_rss(hd, env):
    bg = subprocess.run([hd, "bg", "run", "--json", "--", "sleep", "60"], env=env, capture_output=True, text=True, check=True)
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


if __name__ == "__main__":
    main()
