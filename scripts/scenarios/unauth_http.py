#!/usr/bin/env python3
"""A loopback HTTP server that answers every request 401 with Basic auth, so
git over http asks for a Username. Writes its port to PORTFILE."""
import http.server
import os
import sys


class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="git"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *a):
        pass


s = http.server.HTTPServer(("127.0.0.1", 0), H)
path = sys.argv[1]
with open(path + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(path + ".tmp", path)
s.serve_forever()
