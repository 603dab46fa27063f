#!/usr/bin/env python3
"""Stands in for ssh/telnet/`docker exec -it`: connects to 127.0.0.1:PORT
(read from PORTFILE), forwards the terminal to the connection and the
connection to the terminal, and exits when the remote side closes. With
--poll it waits in poll(2) as telnet and nc do, else in select(2) as ssh."""
import os
import select
import socket
import sys
import time

path = sys.argv[1]
use_poll = "--poll" in sys.argv
for _ in range(50):
    if os.path.exists(path):
        break
    time.sleep(0.1)
port = int(open(path).read())
c = socket.create_connection(("127.0.0.1", port))
poller = select.poll()
poller.register(0, select.POLLIN)
poller.register(c, select.POLLIN)
while True:
    if use_poll:
        ready = {fd for fd, _ in poller.poll()}
        r = [x for x in (0, c) if (x if x == 0 else x.fileno()) in ready]
    else:
        r, _, _ = select.select([0, c], [], [])
    if c in r:
        b = c.recv(4096)
        if not b:
            break
        os.write(1, b)
    if 0 in r:
        b = os.read(0, 4096)
        if not b:
            break
        c.sendall(b)
