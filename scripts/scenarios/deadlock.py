#!/usr/bin/env python3
"""Two threads take two locks in opposite order and wait for each other forever
at 0% CPU: the classic lock-order deadlock, as a stuck worker pool looks."""
import threading
import time

first, second = threading.Lock(), threading.Lock()


def worker(a, b):
    with a:
        time.sleep(0.2)  # both hold their first lock before either asks for the second
        with b:
            pass


print("starting 2 workers", flush=True)
threads = [threading.Thread(target=worker, args=(first, second)),
           threading.Thread(target=worker, args=(second, first))]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("all workers done")  # never reached
