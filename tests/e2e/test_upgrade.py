"""Upgrade passthrough (proxy/upgrade.c) against a scripted upstream.

The scripted upstream relays every ordinary request to a fake apiserver
(so the proxy syncs and is ready), and answers a request that asks for an
upgrade with what the test scripted: a 101 and then bytes either way, a
403, nothing at all. The tests speak raw HTTP/1.1 to the proxy, so they
see exactly what a client would: the relayed 101 head, the spliced
bytes, half-closes and closes either way.

kubectl exec, cp and port-forward against the fake's own upgrading
endpoints are in test_upgrade_kubectl.py.
"""
import hashlib
import json
import os
import socket
import tempfile
import threading
import time
import unittest

import certs
import harness as h
from spy import pump

SPDY_HEAD = (b"HTTP/1.1 101 Switching Protocols\r\n"
             b"Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
             b"X-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n")


def read_head(s, timeout=10):
    """The response head (bytes, up to its blank line) and what came after."""
    s.settimeout(timeout)
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            raise AssertionError("connection closed before a head: %r" % buf)
        buf += d
    head, rest = buf.split(b"\r\n\r\n", 1)
    return head, rest


def headers_of(head):
    lines = head.decode("latin-1").split("\r\n")
    out = {}
    for l in lines[1:]:
        k, v = l.split(":", 1)
        out[k.strip().lower()] = v.strip()
    return lines[0], out


def recv_until_eof(s, timeout=20):
    s.settimeout(timeout)
    out = bytearray()
    while True:
        d = s.recv(1 << 16)
        if not d:
            return bytes(out)
        out += d


class Scripted:
    """A TCP server in front of the fake: upgrade requests go to
    self.script(sock, head_bytes, extra), everything else is relayed."""

    def __init__(self, fake_port):
        self.fake_port = fake_port
        self.script = None
        self.heads = []               # the upgrade request heads seen
        self.events = []              # what scripts report
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def note(self, ev):
        with self.lock:
            self.events.append(ev)

    def wait_event(self, ev, timeout=10):
        h.wait_until(lambda: ev in self.events, timeout=timeout, what=ev)

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    def _serve(self, c):
        buf = b""
        try:
            while b"\r\n\r\n" not in buf:
                d = c.recv(65536)
                if not d:
                    c.close()
                    return
                buf += d
            head, rest = buf.split(b"\r\n\r\n", 1)
            if b"\nupgrade:" in head.lower():
                with self.lock:
                    self.heads.append(head)
                self.script(c, head, rest)
                return
            up = socket.create_connection(("127.0.0.1", self.fake_port))
            up.sendall(buf)
            threading.Thread(target=self._pump, args=(up, c), daemon=True).start()
            self._pump(c, up)
        except OSError:
            pass

    _pump = staticmethod(pump)


def upgrade_request(path="/api/v1/namespaces/ns-1/pods/web-1/exec?command=cat&stdin=true",
                    extra_headers=(), method="POST", upgrade="SPDY/3.1"):
    lines = ["%s %s HTTP/1.1" % (method, path), "Host: localhost",
             "Connection: Upgrade", "Upgrade: " + upgrade,
             "X-Stream-Protocol-Version: v4.channel.k8s.io"]
    lines += list(extra_headers)
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


class Upgrade(unittest.TestCase):
    token = "proxy-token-upgrade"

    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", seed="pods=3")
        cls.up = Scripted(int(cls.fake.url.rsplit(":", 1)[1]))
        cls.tmp = tempfile.mkdtemp()
        kc = certs.kubeconfig(cls.tmp, cls.up.url, token=cls.token)
        cls.proxy = h.proxy(cls.up.url, "pods", "--kubeconfig", kc,
                            "--passthrough-timeout", "2")
        h.wait_ready(cls.proxy.url)
        cls.port = int(cls.proxy.url.rsplit(":", 1)[1])

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.up.sock.close()
        cls.fake.stop()

    def setUp(self):
        with self.up.lock:
            self.up.heads.clear()
            self.up.events.clear()

    def connect(self, req=None):
        s = socket.create_connection(("127.0.0.1", self.port))
        self.addCleanup(s.close)
        s.sendall(req or upgrade_request())
        return s

    # -- scripts ---------------------------------------------------------

    def echo_script(self, trailer=b""):
        """101, then echo until the client's half-close, then trailer and
        close."""
        def script(c, head, rest):
            c.sendall(SPDY_HEAD)
            if rest:
                c.sendall(rest)
            try:
                while True:
                    d = c.recv(65536)
                    if not d:
                        break
                    c.sendall(d)
                self.up.note("upstream saw EOF")
                c.sendall(trailer)
            except OSError:
                self.up.note("upstream error")
            finally:
                c.close()
                self.up.note("upstream closed")
        return script

    # -- tests -----------------------------------------------------------

    def test_101_relayed_and_bytes_spliced_both_ways(self):
        self.up.script = self.echo_script(trailer=b"bye")
        s = self.connect()
        head, rest = read_head(s)
        line, hdrs = headers_of(head)
        self.assertTrue(line.startswith("HTTP/1.1 101"), line)
        self.assertEqual(hdrs.get("upgrade"), "SPDY/3.1")
        self.assertEqual(hdrs.get("connection", "").lower(), "upgrade")
        self.assertEqual(hdrs.get("x-stream-protocol-version"), "v4.channel.k8s.io")
        self.assertEqual(rest, b"")
        for msg in (b"hello", b"x" * 100000, b"\x00\xff\x80"):
            s.sendall(msg)
            got = b""
            s.settimeout(10)
            while len(got) < len(msg):
                d = s.recv(65536)
                self.assertTrue(d, "closed early")
                got += d
            self.assertEqual(got, msg)
        # half-close: the client is done sending, the upstream sees EOF
        # and still gets its last bytes through before it closes
        s.shutdown(socket.SHUT_WR)
        self.assertEqual(recv_until_eof(s), b"bye")
        self.up.wait_event("upstream saw EOF")
        # the request went upstream with its upgrade headers
        _, uh = headers_of(self.up.heads[0])
        self.assertEqual(uh["upgrade"], "SPDY/3.1")
        self.assertEqual(uh["connection"], "Upgrade")
        self.assertEqual(uh["x-stream-protocol-version"], "v4.channel.k8s.io")
        self.assertTrue(self.up.heads[0].startswith(
            b"POST /api/v1/namespaces/ns-1/pods/web-1/exec?command=cat&stdin=true HTTP/1.1"))

    def test_large_transfer_both_ways_at_once(self):
        n = 16 << 20
        src = os.urandom(1 << 20) * 16
        def script(c, head, rest):
            c.sendall(SPDY_HEAD)
            hs = hashlib.sha256(rest)
            got = len(rest)
            sender = threading.Thread(target=lambda: (c.sendall(src), c.shutdown(socket.SHUT_WR)))
            sender.start()
            while True:
                d = c.recv(1 << 16)
                if not d:
                    break
                hs.update(d)
                got += len(d)
            sender.join()
            self.up.note(("received", got, hs.hexdigest()))
            c.close()
        self.up.script = script
        s = self.connect()
        head, rest = read_head(s)
        self.assertIn(b" 101 ", head.split(b"\r\n")[0])
        out = hashlib.sha256()
        up_src = os.urandom(1 << 20) * 16
        t = threading.Thread(target=lambda: (s.sendall(up_src), s.shutdown(socket.SHUT_WR)))
        t.start()
        out.update(rest)
        got = len(rest)
        s.settimeout(60)
        while True:
            d = s.recv(1 << 16)
            if not d:
                break
            out.update(d)
            got += len(d)
        t.join()
        self.assertEqual((got, out.hexdigest()), (n, hashlib.sha256(src).hexdigest()))
        self.up.wait_event(("received", n, hashlib.sha256(up_src).hexdigest()), timeout=60)

    def test_bytes_sent_with_the_request_and_the_101_arrive(self):
        # bytes the client sent right behind its request head, and bytes
        # the upstream sent in the same packet as its 101, are not lost
        def script(c, head, rest):
            c.sendall(SPDY_HEAD + b"first")
            while len(rest) < 5:
                d = c.recv(100)
                if not d:
                    break
                rest += d
            c.sendall(rest)
            c.close()
        self.up.script = script
        s = self.connect(upgrade_request() + b"early")
        head, rest = read_head(s)
        self.assertIn(b" 101 ", head)
        self.assertEqual(rest + recv_until_eof(s), b"firstearly")

    def test_client_leaving_tears_down_upstream(self):
        self.up.script = self.echo_script()
        s = self.connect()
        read_head(s)
        s.sendall(b"ping")
        self.assertEqual(s.recv(4), b"ping")
        s.close()
        self.up.wait_event("upstream closed")
        h.wait_until(lambda: self.proxy_streams() == 0, what="the stream gone in the proxy")

    def test_upstream_leaving_closes_client(self):
        def script(c, head, rest):
            c.sendall(SPDY_HEAD + b"last words")
            c.close()
            self.up.note("upstream closed")
        self.up.script = script
        s = self.connect()
        head, rest = read_head(s)
        # the client reads the upstream's last bytes, then the end
        self.assertEqual(rest + recv_until_eof(s), b"last words")
        self.up.wait_event("upstream closed")
        # a FIN is a half-close as far as the proxy can tell: the client
        # may still talk, and what it sends meets the upstream's reset,
        # which ends both sides
        try:
            s.sendall(b"anyone?")
        except OSError:
            pass
        h.wait_until(lambda: self.proxy_streams() == 0, what="the stream gone in the proxy")

    def test_upstream_reset_ends_both(self):
        def script(c, head, rest):
            c.sendall(SPDY_HEAD)
            c.recv(10)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            c.close()  # RST
        self.up.script = script
        s = self.connect()
        read_head(s)
        s.sendall(b"x")
        try:
            rest = recv_until_eof(s)
        except ConnectionResetError:
            rest = b""
        self.assertEqual(rest, b"")
        h.wait_until(lambda: self.proxy_streams() == 0, what="the stream gone in the proxy")

    def test_forbidden_relayed_as_a_normal_response(self):
        body = json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {},
                           "status": "Failure", "reason": "Forbidden", "code": 403,
                           "message": 'pods "web-1" is forbidden: User "u" cannot create resource "pods/exec"'}).encode()
        def script(c, head, rest):
            c.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n"
                      b"X-Content-Type-Options: nosniff\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            c.close()
        self.up.script = script
        s = self.connect()
        head, rest = read_head(s)
        line, hdrs = headers_of(head)
        self.assertTrue(line.startswith("HTTP/1.1 403"), line)
        self.assertEqual(hdrs["content-type"], "application/json")
        self.assertNotIn("upgrade", hdrs)
        n = int(hdrs["content-length"])
        while len(rest) < n:
            rest += s.recv(65536)
        self.assertEqual(rest, body)

    def test_answers_of_an_upstream_that_keeps_the_connection(self):
        # Go keeps an HTTP/1.1 connection open after a 403: the answer is
        # whole once its Content-Length (or last chunk) is in. A proxy of
        # its own with a long --passthrough-timeout, so that waiting for
        # the connection's end (30 s here) would outlast the client's
        # patience (10 s)
        p = h.proxy(self.up.url, "pods", "--passthrough-timeout", "60")
        self.addCleanup(p.stop)
        h.wait_ready(p.url)
        done = threading.Event()
        self.addCleanup(done.set)
        answers = [
            b"HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n"
            b"Content-Length: 13\r\n\r\n{\"code\":403}\n",
            b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n5\r\n{\"cod\r\n8\r\ne\":401}\n\r\n0\r\n\r\n",
        ]
        for answer, code, body in zip(answers, ("403", "401"),
                                      (b'{"code":403}\n', b'{"code":401}\n')):
            def script(c, head, rest, answer=answer):
                c.sendall(answer)
                done.wait(30)  # and keep the connection
                c.close()
            self.up.script = script
            s = socket.create_connection(("127.0.0.1", int(p.url.rsplit(":", 1)[1])))
            self.addCleanup(s.close)
            s.sendall(upgrade_request())
            head, rest = read_head(s, timeout=10)
            line, hdrs = headers_of(head)
            self.assertIn(" %s " % code, line)
            while len(rest) < int(hdrs["content-length"]):
                rest += s.recv(65536)
            self.assertEqual(rest, body)

    def test_chunked_error_body_relayed_whole(self):
        def script(c, head, rest):
            c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\n"
                      b"6\r\nUpgrad\r\n12\r\ne request required\r\n0\r\n\r\n")
            c.close()
        self.up.script = script
        s = self.connect()
        head, rest = read_head(s)
        line, hdrs = headers_of(head)
        self.assertTrue(line.startswith("HTTP/1.1 400"), line)
        n = int(hdrs["content-length"])
        while len(rest) < n:
            rest += s.recv(65536)
        self.assertEqual(rest, b"Upgrade request required")

    def test_silent_upstream_is_bounded(self):
        # --passthrough-timeout 2 bounds the wait for the 101
        def script(c, head, rest):
            time.sleep(6)
            c.close()
        self.up.script = script
        t0 = time.monotonic()
        s = self.connect()
        head, rest = read_head(s, timeout=15)
        line, _ = headers_of(head)
        self.assertTrue(line.startswith("HTTP/1.1 504"), line)
        self.assertLess(time.monotonic() - t0, 5.5)

    def test_stream_outlives_the_passthrough_timeout(self):
        self.up.script = self.echo_script()
        s = self.connect()
        read_head(s)
        time.sleep(3)  # past --passthrough-timeout 2
        s.sendall(b"still here")
        s.settimeout(5)
        self.assertEqual(s.recv(100), b"still here")

    def test_identity_of_a_client_without_credentials(self):
        self.up.script = self.echo_script()
        s = self.connect(upgrade_request(extra_headers=(
            "Impersonate-User: admin", "Impersonate-Group: system:masters",
            "X-Remote-User: admin", "Cookie: a=b", "X-Other: kept")))
        read_head(s)
        s.close()
        _, uh = headers_of(self.up.heads[0])
        for k in ("impersonate-user", "impersonate-group", "x-remote-user", "cookie"):
            self.assertNotIn(k, uh)
        self.assertEqual(uh["authorization"], "Bearer " + self.token)
        self.assertEqual(uh["x-other"], "kept")

    def test_identity_of_a_client_with_its_own_token(self):
        self.up.script = self.echo_script()
        s = self.connect(upgrade_request(extra_headers=(
            "Authorization: Bearer client-token", "Impersonate-User: someone")))
        read_head(s)
        s.close()
        _, uh = headers_of(self.up.heads[0])
        self.assertEqual(uh["authorization"], "Bearer client-token")
        self.assertEqual(uh["impersonate-user"], "someone")

    def test_websocket_upgrade_relayed(self):
        def script(c, head, rest):
            _, uh = headers_of(head)
            c.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                      b"Connection: Upgrade\r\nSec-WebSocket-Accept: abc=\r\n"
                      b"Sec-WebSocket-Protocol: " + uh["sec-websocket-protocol"].split(",")[0].encode() + b"\r\n\r\n")
            c.sendall(c.recv(100))
            c.close()
        self.up.script = script
        s = self.connect(upgrade_request(
            path="/api/v1/namespaces/ns-1/pods/web-1/exec?command=cat", method="GET",
            upgrade="websocket", extra_headers=(
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
                "Sec-WebSocket-Protocol: v5.channel.k8s.io, v4.channel.k8s.io")))
        head, _ = read_head(s)
        line, hdrs = headers_of(head)
        self.assertTrue(line.startswith("HTTP/1.1 101"), line)
        self.assertEqual(hdrs["sec-websocket-protocol"], "v5.channel.k8s.io")
        self.assertEqual(hdrs["sec-websocket-accept"], "abc=")
        s.sendall(b"\x82\x00")
        self.assertEqual(recv_until_eof(s), b"\x82\x00")
        _, uh = headers_of(self.up.heads[0])
        self.assertEqual(uh["sec-websocket-key"], "dGhlIHNhbXBsZSBub25jZQ==")
        self.assertEqual(uh["sec-websocket-version"], "13")

    def test_a_body_is_refused(self):
        s = self.connect(upgrade_request(extra_headers=("Content-Length: 3",)) + b"abc")
        head, _ = read_head(s)
        self.assertTrue(head.startswith(b"HTTP/1.1 400"), head)
        self.assertEqual(self.up.heads, [])

    def proxy_streams(self):
        s, _, body = h.request("GET", self.proxy.url + "/metrics")
        for line in body.decode().splitlines():
            if line.startswith("informer_proxy_upgrade_streams "):
                return int(float(line.split()[1]))
        raise AssertionError("no informer_proxy_upgrade_streams in /metrics")


class UpgradeDelegated(unittest.TestCase):
    """--client-auth=delegated: an upgrade needs the client's own token,
    which goes upstream alone; the upstream authorizes it."""

    def test_token_required_and_forwarded_alone(self):
        # the client's token is one the upstream knows: a token no review
        # has accepted is reviewed before anything is forwarded
        tmp = tempfile.mkdtemp()
        users = os.path.join(tmp, "users.csv")
        with open(users, "w") as f:
            f.write("client-tok,carl,uid-carl\n")
        fake = h.fake("--quiet", "--token", "the-proxy-token", "--users", users,
                      seed="pods=1")
        self.addCleanup(fake.stop)
        up = Scripted(int(fake.url.rsplit(":", 1)[1]))
        self.addCleanup(up.sock.close)
        kc = certs.kubeconfig(tmp, up.url, token="the-proxy-token")
        p = h.proxy(up.url, "pods", "--kubeconfig", kc, "--client-auth", "delegated")
        self.addCleanup(p.stop)
        h.wait_until(lambda: "synced" in p.logs(), what="the proxy synced")

        def script(c, head, rest):
            c.sendall(SPDY_HEAD)
            c.close()
        up.script = script
        port = int(p.url.rsplit(":", 1)[1])
        s = socket.create_connection(("127.0.0.1", port))
        self.addCleanup(s.close)
        s.sendall(upgrade_request())
        head, _ = read_head(s)
        self.assertTrue(head.startswith(b"HTTP/1.1 401"), head)
        self.assertEqual(up.heads, [])
        s2 = socket.create_connection(("127.0.0.1", port))
        self.addCleanup(s2.close)
        s2.sendall(upgrade_request(extra_headers=("Authorization: Bearer client-tok",
                                                  "Impersonate-User: bob")))
        head, _ = read_head(s2)
        self.assertTrue(head.startswith(b"HTTP/1.1 101"), head)
        _, uh = headers_of(up.heads[0])
        self.assertEqual(uh["authorization"], "Bearer client-tok")
        self.assertEqual(uh["impersonate-user"], "bob")


class UpgradeLimits(unittest.TestCase):
    """An upgraded stream is one open connection for --max-connections
    until it ends, and is never idle for --idle-timeout."""

    def test_streams_count_as_connections_and_are_never_idle(self):
        fake = h.fake("--quiet", seed="pods=1")
        self.addCleanup(fake.stop)
        up = Scripted(int(fake.url.rsplit(":", 1)[1]))
        self.addCleanup(up.sock.close)

        def echo(c, head, rest):
            c.sendall(SPDY_HEAD)
            while True:
                d = c.recv(65536)
                if not d:
                    break
                c.sendall(d)
            c.close()
        up.script = echo
        p = h.proxy(up.url, "pods", "--max-connections", "2", "--idle-timeout", "2")
        self.addCleanup(p.stop)
        h.wait_ready(p.url)
        port = int(p.url.rsplit(":", 1)[1])
        streams = []
        for _ in range(2):
            s = socket.create_connection(("127.0.0.1", port))
            self.addCleanup(s.close)
            s.sendall(upgrade_request())
            self.assertIn(b" 101 ", read_head(s)[0])
            streams.append(s)
        # a third client is past --max-connections while both are open
        s, _, body = h.request("GET", p.url + "/api/v1/pods?resourceVersion=0")
        self.assertEqual(s, 429, body)
        # idle well past --idle-timeout, the streams still work
        time.sleep(4)
        for s in streams:
            s.sendall(b"still")
            s.settimeout(5)
            self.assertEqual(s.recv(10), b"still")
        streams[0].close()
        h.wait_until(lambda: h.request("GET", p.url + "/api/v1/pods?resourceVersion=0")[0] == 200,
                     what="room again once a stream ended")


class UpgradeShutdown(unittest.TestCase):
    def test_stop_ends_open_streams_and_handshakes(self):
        fake = h.fake("--quiet", seed="pods=1")
        self.addCleanup(fake.stop)
        up = Scripted(int(fake.url.rsplit(":", 1)[1]))
        self.addCleanup(up.sock.close)
        p = h.proxy(up.url, "pods")
        h.wait_ready(p.url)
        port = int(p.url.rsplit(":", 1)[1])
        gate = threading.Event()

        def script(c, head, rest):
            if b"/hang" in head.split(b"\r\n")[0]:
                gate.wait(30)  # never answers
                c.close()
                return
            c.sendall(SPDY_HEAD)
            while c.recv(65536):
                pass
            up.note("upstream saw the end")
            c.close()
        up.script = script
        self.addCleanup(gate.set)
        open_stream = socket.create_connection(("127.0.0.1", port))
        self.addCleanup(open_stream.close)
        open_stream.sendall(upgrade_request())
        read_head(open_stream)
        waiting = socket.create_connection(("127.0.0.1", port))
        self.addCleanup(waiting.close)
        waiting.sendall(upgrade_request(path="/api/v1/namespaces/ns-1/pods/web-1/hang"))
        h.wait_until(lambda: len(up.heads) == 2, what="both requests upstream")
        # a clean exit (code 0, no sanitizer report) with both open
        self.assertEqual(p.stop(), 0)
        self.assertEqual(recv_until_eof(open_stream, timeout=10), b"")
        up.wait_event("upstream saw the end")
        head, _ = read_head(waiting)
        self.assertTrue(head.startswith(b"HTTP/1.1 503"), head)


class UpgradeFailures(unittest.TestCase):
    def test_fake_answer_to_an_unknown_resource_relayed(self):
        # the fake answers an upgrade of a path nothing serves with its
        # 404 Status; the client gets exactly that
        f, p = h.fake_and_proxy(self, "pods", seed="pods=1")
        port = int(p.url.rsplit(":", 1)[1])
        s = socket.create_connection(("127.0.0.1", port))
        self.addCleanup(s.close)
        s.sendall(upgrade_request(path="/api/v1/namespaces/ns-1/nopes/x/exec"))
        head, rest = read_head(s)
        self.assertTrue(head.startswith(b"HTTP/1.1 404"), head)
        _, hdrs = headers_of(head)
        while len(rest) < int(hdrs["content-length"]):
            rest += s.recv(65536)
        self.assertEqual(json.loads(rest)["reason"], "NotFound")

    def test_h2c_is_no_upgrade(self):
        # curl --http2 on http:// asks to upgrade to h2c, which the
        # apiserver ignores: a cached read stays a cached read
        f, p = h.fake_and_proxy(self, "pods", seed="pods=2")
        lists = h.get_json(f.url + "/fake/stats")[1]["resources"]["pods"]["list"]
        port = int(p.url.rsplit(":", 1)[1])
        s = socket.create_connection(("127.0.0.1", port))
        self.addCleanup(s.close)
        s.sendall(b"GET /api/v1/pods?resourceVersion=0 HTTP/1.1\r\nHost: localhost\r\n"
                  b"Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                  b"HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n")
        head, rest = read_head(s)
        line, hdrs = headers_of(head)
        self.assertTrue(line.startswith("HTTP/1.1 200"), line)
        self.assertNotIn("upgrade", hdrs)
        while len(rest) < int(hdrs["content-length"]):
            rest += s.recv(65536)
        self.assertEqual(len(json.loads(rest)["items"]), 2)
        self.assertEqual(h.get_json(f.url + "/fake/stats")[1]["resources"]["pods"]["list"],
                         lists)

    def test_unreachable_and_broken_upstreams_are_503(self):
        fake = h.fake("--quiet", seed="pods=1")
        self.addCleanup(fake.stop)
        up = Scripted(int(fake.url.rsplit(":", 1)[1]))
        p = h.proxy(up.url, "pods")
        self.addCleanup(p.stop)
        h.wait_ready(p.url)
        port = int(p.url.rsplit(":", 1)[1])

        def ask():
            s = socket.create_connection(("127.0.0.1", port))
            self.addCleanup(s.close)
            s.sendall(upgrade_request())
            head, rest = read_head(s)
            _, hdrs = headers_of(head)
            while len(rest) < int(hdrs["content-length"]):
                rest += s.recv(65536)
            return head.split(b"\r\n")[0], json.loads(rest)

        up.script = lambda c, head, rest: c.close()  # hangs up, no answer
        line, st = ask()
        self.assertIn(b" 503 ", line)
        self.assertEqual(st["reason"], "ServiceUnavailable")
        up.script = lambda c, head, rest: (c.sendall(b"SSH-2.0-nope\r\n\r\n"), c.close())
        line, st = ask()
        self.assertIn(b" 503 ", line)
        self.assertIn("not HTTP", st["message"])
        # nothing listens there any more (shutdown: a thread blocked in
        # accept() would keep a merely closed socket listening)
        up.sock.shutdown(socket.SHUT_RDWR)
        up.sock.close()
        line, st = ask()
        self.assertIn(b" 503 ", line)
        self.assertIn("cannot connect", st["message"])


if __name__ == "__main__":
    unittest.main()
