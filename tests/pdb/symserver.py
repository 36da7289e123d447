#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A symbol server for the tests: serves DIR (a symbol-store layout) over HTTP on 127.0.0.1,
# on a free port it prints first, logging each request's path to LOG; it stops by itself
# after SECONDS. usage: symserver.py DIR LOG SECONDS
import functools
import http.server
import sys
import threading

root, log, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, fmt, *args):
        with open(log, "a") as f:
            f.write("%s %s\n" % (self.command, self.path))


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=root))
print(server.server_address[1], flush=True)
threading.Timer(seconds, server.shutdown).start()
server.serve_forever()
