#!/usr/bin/env python3
"""A stand-in for Google's OAuth endpoints for the sealed-credentials bench (sealed_world.py):
the refresh-token grant creds-adc sends answers a random access token valid an hour, and
tokeninfo answers the bench user's email. Plain HTTP on the address given, inside the bench's
"internet" network namespace; creds-adc reaches it from the daemons' namespace (never through
the egress proxy). Python standard library only.

  token_peer.py <address> <port> <email>
"""

import json
import secrets
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    address, port, email = sys.argv[1], int(sys.argv[2]), sys.argv[3]

    class Handler(BaseHTTPRequestHandler):
        def answer(self, body):
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):  # noqa: N802 (http.server's name)
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.path != "/token":
                self.send_error(404)
                return
            self.answer({"access_token": "ya29.bench-" + secrets.token_urlsafe(24),
                         "expires_in": 3600, "token_type": "Bearer",
                         "scope": "https://www.googleapis.com/auth/cloud-platform"})

        def do_GET(self):  # noqa: N802
            if self.path.split("?")[0] not in ("/tokeninfo", "/userinfo"):
                self.send_error(404)
                return
            self.answer({"email": email, "email_verified": "true"})

        def log_message(self, *args):
            pass

    ThreadingHTTPServer((address, port), Handler).serve_forever()


if __name__ == "__main__":
    main()
