#!/usr/bin/env python3
"""A bare TCP server on an ephemeral loopback port: prints where it listens,
then waits for connections forever (like `nc -l`)."""
import socket

s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen()
print(f"listening on 127.0.0.1:{s.getsockname()[1]}", flush=True)
while True:
    conn, _ = s.accept()
    conn.close()
