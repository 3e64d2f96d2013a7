"""A pod network for oci-run.py's pods whose only way out is one address (`pod --only-reach`):
what a NetworkPolicy admitting only the daemon's egress gateway gives a pod on a real cluster,
without a network plugin. The kubelet player hands pods addresses 127.0.0.N on its own network,
where the router and the daemon reach them; here the pod's server still listens there (on a
socket made before the pod leaves that network, handed to the server as fd:N), but the pod runs
in a network namespace of its own with only its loopback, where HOST:PORT (the gateway's address,
e.g. 127.0.0.1:PORT) is a forwarder to the same address on the player's network. So a program
that uses HTTPS_PROXY reaches the gateway, and one that dials anything else gets "network is
unreachable". Linux, root; Python 3.11's os has no setns/unshare, so libc's are called.
"""

import ctypes
import os
import socket
import subprocess
import threading

CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1

_libc = ctypes.CDLL(None, use_errno=True)


class PodNetworkError(RuntimeError):
    pass


def _check(result, what):
    if result != 0:
        raise PodNetworkError(f"{what}: {os.strerror(ctypes.get_errno())}")


def server_listener(listen):
    """The pod server's listening socket on the player's network (listen: tcp:HOST:PORT), made
    inheritable; returns its fd:N address and the socket."""
    host, _, port = listen.removeprefix("tcp:").rpartition(":")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, int(port)))
    listener.listen(128)
    os.set_inheritable(listener.fileno(), True)
    return f"fd:{listener.fileno()}", listener


def _pipe(source, sink):
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end in (sink, source):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _serve(listener, target):
    while True:
        inside, _ = listener.accept()
        try:
            outside = socket.create_connection(target, timeout=10)
            outside.settimeout(None)
        except OSError:
            inside.close()
            continue
        for a, b in ((inside, outside), (outside, inside)):
            threading.Thread(target=_pipe, args=(a, b), daemon=True).start()


def isolate(only_reach):
    """Moves this process into a new network namespace with only its loopback and a forwarder
    at `only_reach` (HOST:PORT) to the same address outside; returns the forwarder's pid (it dies
    with this process)."""
    host, _, port = only_reach.rpartition(":")
    target = (host, int(port))
    outside = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    _check(_libc.unshare(CLONE_NEWNET), "unshare(CLONE_NEWNET)")
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(target)  # inside: the pod's own loopback
    listener.listen(128)
    pid = os.fork()
    if pid == 0:
        try:
            _libc.prctl(PR_SET_PDEATHSIG, 9)
            _check(_libc.setns(outside, CLONE_NEWNET), "setns back to the player's network")
            _serve(listener, target)  # accepts inside, connects outside
        finally:
            os._exit(1)
    listener.close()
    os.close(outside)
    return pid
