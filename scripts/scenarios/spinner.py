#!/usr/bin/env python3
"""Rewrites one line with \\r, like npm/pip/cargo progress.

--progress SECONDS: a bar that advances to 100% over SECONDS, then exits 0.
--forever:          the same four spinner frames and text forever, with no
                    progress behind them (a spinner over a hang)."""
import argparse
import sys
import time

ap = argparse.ArgumentParser()
g = ap.add_mutually_exclusive_group(required=True)
g.add_argument("--progress", type=float)
g.add_argument("--forever", action="store_true")
a = ap.parse_args()
frames = "|/-\\"
if a.forever:
    i = 0
    while True:
        sys.stdout.write(f"\r{frames[i % 4]} Resolving dependencies...")
        sys.stdout.flush()
        i += 1
        time.sleep(0.1)
steps = 50
for n in range(steps + 1):
    bar = "#" * n + " " * (steps - n)
    sys.stdout.write(f"\rdownloading [{bar}] {n * 2:3d}% {n * 4.1:.1f}/205.0 MB")
    sys.stdout.flush()
    time.sleep(a.progress / steps)
print("\ndone")
