"""The security model, tried as an attacker would, from the client side:
request targets that try to move the upstream host, clients that try to
borrow the proxy's identity, the unix socket's mode, and a busy port.

The proxy runs in front of a spy (tests/lib/spy.py) that records what the
upstream receives: the fake apiserver accepts only the proxy's token.
"""
import json
import os
import socket
import stat
import subprocess
import tempfile
import time
import unittest

import harness as h
from spy import Spy

import certs

PROXY_TOKEN = "proxy-token-3b1f9c"


def raw_request(url, line, extra=b""):
    """Send one request line as given; return (status code, body)."""
    host, port = url.split("//")[1].split(":")
    s = socket.create_connection((host, int(port)), timeout=10)
    s.sendall(line.encode() + b"\r\nHost: localhost\r\nConnection: close\r\n" + extra + b"\r\n")
    data = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        data += d
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


class Targets(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--token", PROXY_TOKEN, seed="pods=10")
        cls.trap = Spy()          # where an SSRF would land
        cls.spy, cls.proxy = h.proxy_via_spy(cls.fake, PROXY_TOKEN,
                                             tempfile.mkdtemp(prefix="sec-"), "pods")

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()
        cls.spy.close()
        cls.trap.close()

    def test_targets_that_name_another_host_are_refused(self):
        trap = "127.0.0.1:%d" % self.trap.port
        before = len(self.spy.requests)
        for target in ("@%s/x" % trap, "%%40%s/x" % trap, "%s/api" % trap,
                       "http://%s/api/v1/pods" % trap, "//%s/api" % trap.replace(":", "%3A"),
                       "*"):
            for method in ("GET", "POST", "DELETE"):
                code, body = raw_request(self.proxy.url, "%s %s HTTP/1.1" % (method, target),
                                         b"Content-Length: 0\r\n" if method == "POST" else b"")
                if target.startswith("//"):
                    # a path after all ("//127.0.0.1%3A.../api"): it may go
                    # upstream, but only to the configured upstream
                    continue
                self.assertEqual(code, 400, (method, target, body[:200]))
                st = json.loads(body)
                self.assertEqual((st["kind"], st["reason"]), ("Status", "BadRequest"))
        time.sleep(0.3)   # a duration: no late connection may reach the trap
        self.assertEqual(self.trap.connections, 0, "a request reached the attacker's host")
        self.assertEqual(self.trap.requests, [])
        # nothing of the refused ones reached the upstream either
        self.assertFalse([r for r in self.spy.requests[before:] if trap in r[0]
                          and not r[0].split()[1].startswith("//")])

    def test_nul_dot_segments_and_encoded_slash(self):
        for target, want in (("/api/v1/pods%00", 400),
                             ("/api/v1/pods?labelSelector=a%00", 400),
                             ("/api/v1/namespaces/ns-1/../pods", 400),
                             ("/api/v1/namespaces/%2e%2e/pods", 400),
                             ("/api/v1/namespaces/a%2Fb/pods", 200)):
            code, body = raw_request(self.proxy.url, "GET %s HTTP/1.1" % target)
            self.assertEqual(code, want, (target, body[:200]))
        # an encoded slash stays in its segment: namespace "a/b" has no pods
        _, body = raw_request(self.proxy.url, "GET /api/v1/namespaces/a%2Fb/pods?resourceVersion=0 HTTP/1.1")
        self.assertEqual(json.loads(body)["items"], [])
        # passthrough keeps the encoding exactly, dot segments never leave
        raw_request(self.proxy.url, "GET /api/v1/namespaces/a%2Fb/services HTTP/1.1")
        seen = [r[0] for r in self.spy.heads("/services")]
        self.assertIn("GET /api/v1/namespaces/a%2Fb/services HTTP/1.1", seen)


class Identity(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--token", PROXY_TOKEN, seed="pods=10")
        cls.dir = tempfile.mkdtemp(prefix="sec-")
        cls.pki = certs.make_pki(cls.dir)
        cls.sock = os.path.join(cls.dir, "proxy.sock")
        cls.spy, cls.proxy = h.proxy_via_spy(cls.fake, PROXY_TOKEN, cls.dir, "pods",
                                             "--unix-socket", cls.sock)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()
        cls.spy.close()

    def write(self, name, headers):
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": "ns-1"}, "data": {"a": "b"}}
        return h.request("POST", self.proxy.url + "/api/v1/namespaces/ns-1/configmaps",
                         body=body, headers=headers)

    def last_write(self, name):
        reqs = [r for r in self.spy.heads("POST /api/v1/namespaces/ns-1/configmaps")]
        self.assertTrue(reqs, "the write never reached the upstream")
        return reqs[-1][1]

    def test_a_client_token_goes_alone(self):
        s, _, raw = self.write("with-own-token", {"Authorization": "Bearer client-tok"})
        hdrs = self.last_write("with-own-token")
        self.assertEqual(hdrs.get("authorization"), "Bearer client-tok")
        # the forwarded write itself (the proxy's own discovery refreshes
        # may come after it, with the proxy's token, as they should)
        self.assertNotIn(PROXY_TOKEN, json.dumps(hdrs))
        # the fake knows only the proxy's token: the client's own is refused
        self.assertEqual(s, 401, raw[:300])

    def test_no_token_on_loopback_acts_as_the_proxy_without_borrowed_headers(self):
        s, _, raw = self.write("as-proxy", {"Impersonate-User": "system:admin",
                                            "Impersonate-Group": "system:masters",
                                            "X-Remote-User": "root",
                                            "Proxy-Authorization": "Basic eDp5"})
        self.assertEqual(s, 201, raw[:300])
        hdrs = self.last_write("as-proxy")
        self.assertEqual(hdrs.get("authorization"), "Bearer " + PROXY_TOKEN)
        for k in ("impersonate-user", "impersonate-group", "x-remote-user",
                  "proxy-authorization"):
            self.assertNotIn(k, hdrs)

    def test_unix_socket_is_0600(self):
        mode = stat.S_IMODE(os.stat(self.sock).st_mode)
        self.assertEqual(mode, 0o600)


class Startup(unittest.TestCase):
    def run_proxy(self, *args):
        return subprocess.run([os.path.join(h.BIN, "informer-proxy"), "--resources", "pods",
                               *args], capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL)

    def test_busy_port_is_an_error_naming_it(self):
        fake = h.fake("--quiet", seed="pods=1")
        self.addCleanup(fake.stop)
        first = h.proxy(fake.url, "pods")
        self.addCleanup(first.stop)
        port = first.url.rsplit(":", 1)[1]
        r = self.run_proxy("--server", fake.url, "--listen", "127.0.0.1:" + port)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("127.0.0.1:" + port, r.stdout + r.stderr)
        self.assertIn("in use", r.stdout + r.stderr)

    def test_non_loopback_needs_delegated(self):
        r = self.run_proxy("--server", "http://127.0.0.1:9", "--listen", "0.0.0.0:0")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("--client-auth=delegated", r.stdout + r.stderr)

    def test_unix_socket_never_replaces_a_file(self):
        d = tempfile.mkdtemp(prefix="sec-")
        path = os.path.join(d, "important")
        with open(path, "w") as f:
            f.write("keep me")
        r = self.run_proxy("--server", "http://127.0.0.1:9", "--listen", "127.0.0.1:0",
                           "--unix-socket", path)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not a socket", r.stdout + r.stderr)
        with open(path) as f:
            self.assertEqual(f.read(), "keep me")


def unix_get(path, target="/healthz"):
    """The status of GET target over the unix socket at path."""
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    try:
        s.connect(path)
        s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                   % target).encode())
        data = b""
        while b"\r\n" not in data:
            d = s.recv(4096)
            if not d:
                break
            data += d
        return int(data.split()[1])
    finally:
        s.close()


class UnixSocket(unittest.TestCase):
    """A live socket is never taken over, a stale one is; a proxy removes
    at exit only the socket it made."""

    def setUp(self):
        self.fake = h.fake("--quiet", seed="pods=1")
        self.addCleanup(self.fake.stop)
        d = tempfile.mkdtemp(prefix="sec-")
        self.path = os.path.join(d, "proxy.sock")

    def start(self):
        proxy = h.proxy(self.fake.url, "pods", "--unix-socket", self.path)
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        return proxy

    def test_a_live_socket_is_not_taken_over(self):
        first = self.start()
        ino = os.lstat(self.path).st_ino
        r = subprocess.run([os.path.join(h.BIN, "informer-proxy"), "--resources", "pods",
                            "--server", self.fake.url, "--listen", "127.0.0.1:0",
                            "--unix-socket", self.path], capture_output=True, text=True,
                           timeout=30, stdin=subprocess.DEVNULL)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("another process is serving on it", r.stdout + r.stderr)
        # the first one still has its socket, and serves on it
        self.assertEqual(os.lstat(self.path).st_ino, ino)
        self.assertEqual(unix_get(self.path), 200)
        first.stop()
        self.assertFalse(os.path.exists(self.path), "its own socket is removed at exit")

    def test_a_stale_socket_is_replaced(self):
        s = socket.socket(socket.AF_UNIX)
        s.bind(self.path)
        s.close()   # the file stays; no one listens
        self.start()
        self.assertEqual(unix_get(self.path), 200)

    def test_exit_leaves_a_socket_it_did_not_make(self):
        first = self.start()
        # someone else's socket now has the path
        os.unlink(self.path)
        other = socket.socket(socket.AF_UNIX)
        self.addCleanup(other.close)
        other.bind(self.path)
        other.listen(1)
        ino = os.lstat(self.path).st_ino
        first.stop()
        self.assertTrue(os.path.exists(self.path), "another's socket was removed")
        self.assertEqual(os.lstat(self.path).st_ino, ino)
        self.assertIn("no longer the socket this proxy made", first.logs())

if __name__ == "__main__":
    unittest.main()
