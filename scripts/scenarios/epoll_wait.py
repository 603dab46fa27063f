#!/usr/bin/env python3
"""Stands in for a Go or Node program sleeping in its event loop: a worker
thread waits in epoll_wait with a timeout (SECONDS, or forever with
--forever) while the main thread blocks joining it, as a multi-threaded
runtime does. Prints "done" when the timeout passes."""
import select
import sys
import threading

forever = "--forever" in sys.argv
secs = float(next((a for a in sys.argv[1:] if not a.startswith("-")), "12"))


def loop():
    ep = select.epoll()
    ep.poll(-1 if forever else secs)


t = threading.Thread(target=loop)
t.start()
t.join()
print("done", flush=True)
