"""HTTP/1.1 + JSON over a Unix socket: the daemon API and a sandbox's own runtime API.

Used by the measurement program from its main thread and its throughput worker threads (one
connection per request, so threads never share a connection)."""

import http.client
import json
import socket


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, socket_path, timeout):
        super().__init__("localhost", timeout=timeout)
        self._socket_path = socket_path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self._socket_path)
        self.sock = sock


class ApiError(RuntimeError):
    pass


def request(socket_path, method, path, body=None, timeout=600):
    """One request; returns (status, parsed JSON or None). Raises ApiError on transport errors."""
    conn = UnixHTTPConnection(socket_path, timeout)
    try:
        payload = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        conn.request(method, path, body=payload, headers=headers)
        response = conn.getresponse()
        data = response.read()
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = {"raw": data[:200].decode(errors="replace")}
        return response.status, parsed
    except OSError as error:
        raise ApiError(f"{method} {path} on {socket_path} failed: {error}") from error
    finally:
        conn.close()


def expect(socket_path, method, path, body=None, status=(200, 201), timeout=600):
    """request() that raises ApiError naming the route and body unless the status is expected."""
    got, parsed = request(socket_path, method, path, body, timeout)
    if got not in status:
        raise ApiError(f"{method} {path} answered {got}: {parsed}")
    return parsed
