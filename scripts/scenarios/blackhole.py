#!/usr/bin/env python3
"""A loopback TCP server that accepts and never answers (a hung backend).
Writes its port to the file named by its argument (default port.txt), then
holds every connection open for SECONDS (default 120) and exits."""
import socket
import sys
import threading
import time

path = sys.argv[1] if len(sys.argv) > 1 else "port.txt"
secs = float(sys.argv[2]) if len(sys.argv) > 2 else 120
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
with open(path + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
import os
os.rename(path + ".tmp", path)
conns = []
threading.Thread(target=lambda: [conns.append(s.accept()) for _ in iter(int, 1)], daemon=True).start()
time.sleep(secs)
