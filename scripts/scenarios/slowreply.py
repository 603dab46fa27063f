#!/usr/bin/env python3
"""Stands in for a remote host running a slow command (`ssh host 'sleep 15;
echo done'`): a loopback server that writes its port to PORTFILE, accepts
one connection, says nothing for SECONDS, then sends "done" and closes."""
import os
import socket
import sys
import time

path, secs = sys.argv[1], float(sys.argv[2])
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
with open(path + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(path + ".tmp", path)
c, _ = s.accept()
time.sleep(secs)
c.sendall(b"done\n")
c.shutdown(socket.SHUT_WR)
time.sleep(0.5)
c.close()
