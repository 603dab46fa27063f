#!/usr/bin/env python3
"""Prints ping-like lines, one a second, COUNT of them (default 15): only
the sequence number and the time change. With --stuck every line is the
same ("status: 0/3 replicas ready"), forever."""
import random
import sys
import time

if "--stuck" in sys.argv:
    while True:
        print("deployment web: 0/3 replicas ready, waiting", flush=True)
        time.sleep(1)
n = int(sys.argv[1]) if len(sys.argv) > 1 else 15
print("PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.", flush=True)
for i in range(1, n + 1):
    print(f"64 bytes from 127.0.0.1: icmp_seq={i} ttl=64 time=0.0{random.randint(10, 99)} ms", flush=True)
    time.sleep(1)
print(f"--- 127.0.0.1 ping statistics ---\n{n} packets transmitted, {n} received, 0% packet loss")
