#!/usr/bin/env python3
"""Burns one core for SECONDS, then exits 0. With --report N it prints a progress
line every N seconds; without it, it is silent work (quiet but progressing)."""
import argparse
import time

ap = argparse.ArgumentParser()
ap.add_argument("seconds", type=float)
ap.add_argument("--report", type=float, default=0)
a = ap.parse_args()
start = time.monotonic()
next_report = a.report
x = 0
while (elapsed := time.monotonic() - start) < a.seconds:
    for i in range(20000):
        x = (x * 31 + i) % 1000003
    if a.report and elapsed >= next_report:
        print(f"processed {int(elapsed * 1000)} records, checksum {x}", flush=True)
        next_report += a.report
print(f"done in {time.monotonic() - start:.1f}s, checksum {x}")
