#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A misbehaving symbol server (or debuginfod) for the tests, on 127.0.0.1 only: it prints its
# port first and stops by itself after SECONDS. The first part of a request's path says how
# it answers, whatever follows:
#   /drip/...     200, a Content-Length of 1 MB, then 2 bytes a second
#   /stall/...    200 and its headers, then nothing
#   /endless/...  200, no length, bytes as fast as the client takes them
#   /html/...     200 with an HTML page (a portal or an error page served as a success)
#   /any/...      200 with the bytes of FILE (for a name that must never become a path)
# Every answer is bounded by SECONDS; each request's path is logged to LOG.
# usage: badserver.py LOG SECONDS [FILE]
import http.server
import sys
import threading
import time

log, seconds = sys.argv[1], float(sys.argv[2])
body = open(sys.argv[3], "rb").read() if len(sys.argv) > 3 else b""
end = time.monotonic() + seconds


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        with open(log, "a") as f:
            f.write("GET %s\n" % self.path)
        mode = self.path.split("/")[1] if self.path.count("/") > 1 else ""
        try:
            if mode == "html":
                page = b"<!DOCTYPE html><html><body>Sign in to continue</body></html>\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)
            elif mode == "any":
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif mode in ("drip", "stall", "endless"):
                self.send_response(200)
                if mode != "endless":
                    self.send_header("Content-Length", str(1 << 20))
                self.end_headers()
                self.wfile.flush()
                chunk = b"\0" * 65536
                while time.monotonic() < end:
                    if mode == "drip":
                        self.wfile.write(b"MS")
                        self.wfile.flush()
                        time.sleep(1)
                    elif mode == "stall":
                        time.sleep(0.2)
                    else:
                        self.wfile.write(chunk)
            else:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
threading.Timer(seconds, server.shutdown).start()
server.serve_forever()
