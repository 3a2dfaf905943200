"""Request bodies through passthrough: they stream to the upstream, so a
stalled one holds a small buffer and not its whole size; the whole body
is due within --request-body-timeout of its header; one past the
apiserver's 3 MiB limit gets 413 RequestEntityTooLarge; a large one within
it arrives intact; a header name that is not a token (white space before
the colon) gets 400 and is never forwarded."""
import json
import re
import os
import socket
import tempfile
import threading
import time
import unittest

import harness as h
from spy import Spy

MIB = 1024 * 1024


def host_port(url):
    host, port = url.split("//", 1)[1].rsplit(":", 1)
    return host, int(port)


def head(method, path, extra=()):
    lines = ["%s %s HTTP/1.1" % (method, path), "Host: localhost",
             "Content-Type: application/json"] + list(extra)
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def closed(sock):
    """Whether the peer has closed sock (reads nothing more, or resets)."""
    try:
        sock.setblocking(False)
        try:
            return sock.recv(65536) == b""
        except BlockingIOError:
            return False
        finally:
            sock.setblocking(True)
    except OSError:
        return True


def read_answer(sock, timeout=30):
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        d = sock.recv(65536)
        if not d:
            break
        data += d
    hd, _, body = data.partition(b"\r\n\r\n")
    n = 0
    for line in hd.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            n = int(v)
    while len(body) < n:
        d = sock.recv(65536)
        if not d:
            break
        body += d
    status = int(hd.split(b" ", 2)[1]) if hd else 0
    return status, body


class Bodies(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", seed="pods=2")
        cls.proxy = h.proxy(cls.fake.url, "pods", "--request-body-timeout", "3")
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def connect(self):
        return socket.create_connection(host_port(self.proxy.url))

    def test_large_body_arrives_intact(self):
        data = "".join(chr(ord("a") + i % 26) for i in range(2 * MIB))
        cm = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "big-body", "namespace": "ns-1"}, "data": {"k": data}}
        s, _, raw = h.request("POST", self.proxy.url + "/api/v1/namespaces/ns-1/configmaps", body=cm)
        self.assertEqual(s, 201, raw[:300])
        s, got = h.get_json(self.fake.url + "/api/v1/namespaces/ns-1/configmaps/big-body")
        self.assertEqual(s, 200)
        self.assertEqual(got["data"]["k"], data)

    def test_body_past_the_limit_gets_413(self):
        # A body a little past the limit (a mistaken apply) is read and
        # dropped, then answered: a client that sends it whole before it
        # reads, as Go's and Python's do, gets the 413, never a reset.
        sock = self.connect()
        self.addCleanup(sock.close)
        body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"huge"}}'
        body += b" " * (4 * MIB - len(body))
        sock.sendall(head("POST", "/api/v1/namespaces/ns-1/configmaps",
                          ["Content-Length: %d" % len(body)]) + body)
        self.assert_413(sock, "huge")

    def test_huge_body_is_answered_at_its_header(self):
        # Far past the limit: answered on its header, the body unread.
        sock = self.connect()
        self.addCleanup(sock.close)
        sock.sendall(head("POST", "/api/v1/namespaces/ns-1/configmaps",
                          ["Content-Length: %d" % (7 * MIB)]))
        sock.sendall(b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"huger"}')
        self.assert_413(sock, "huger")

    def assert_413(self, sock, name):
        s, raw = read_answer(sock)
        self.assertEqual(s, 413, raw[:300])
        st = json.loads(raw)
        self.assertEqual((st["kind"], st["reason"], st["code"]),
                         ("Status", "RequestEntityTooLarge", 413))
        self.assertIn("limit is 3145728", st["message"])
        s, _ = h.get_json(self.fake.url + "/api/v1/namespaces/ns-1/configmaps/" + name)
        self.assertEqual(s, 404)

    def cuts(self):
        text = h.request("GET", self.proxy.url + "/metrics")[2].decode()
        m = re.search(r'reason="body_timeout"\} (\d+)', text)
        return int(m.group(1)) if m else 0

    def test_slow_body_is_cut_off(self):
        cuts0 = self.cuts()
        sock = self.connect()
        self.addCleanup(sock.close)
        sock.sendall(head("POST", "/api/v1/namespaces/ns-1/configmaps",
                          ["Content-Length: 1000", "Authorization: Bearer junk"]))
        # a byte every 0.2 s keeps the connection busy, never idle, but
        # the whole body is far from in after --request-body-timeout (3 s)
        stop = time.time() + 60
        cut = False
        while time.time() < stop:
            try:
                sock.sendall(b" ")
            except OSError:
                cut = True
                break
            if closed(sock):
                cut = True
                break
            time.sleep(0.2)
        self.assertTrue(cut, "a body trickled past --request-body-timeout was not cut off")
        h.wait_until(lambda: self.cuts() > cuts0, what="the cut counted in /metrics")

    def test_stalled_bodies_hold_little_memory(self):
        # 50 clients send all of a 3 MiB body but its last byte, then stall:
        # what the proxy holds for each is a small buffer, not the body
        n, size = 50, 3 * MIB
        pid = self.proxy.proc.pid
        body = b"x" * (size - 1)
        socks, done = [], []
        warm = self.connect()  # one first, so that pools and threads exist
        warm.sendall(head("POST", "/api/v1/namespaces/ns-1/configmaps",
                          ["Content-Length: %d" % size, "Authorization: Bearer junk"]) + body)
        time.sleep(1)
        warm.close()
        time.sleep(1)
        before = h.rss_bytes(pid)

        def send(sock):
            try:
                sock.sendall(head("POST", "/api/v1/namespaces/ns-1/configmaps",
                                  ["Content-Length: %d" % size,
                                   "Authorization: Bearer junk"]) + body)
                done.append(sock)
            except OSError:
                pass

        threads = []
        for _ in range(n):
            s = self.connect()
            socks.append(s)
            self.addCleanup(s.close)
            t = threading.Thread(target=send, args=(s,), daemon=True)
            t.start()
            threads.append(t)
        for t in threads:
            t.join(120)
        self.assertEqual(len(done), n, "the proxy stopped reading the bodies")
        # what the proxy took is in; RSS is read a few times, the peak kept
        peak = before
        for _ in range(10):
            time.sleep(0.3)
            peak = max(peak, h.rss_bytes(pid))
        per = (peak - before) / n
        if h.RSS_MEANINGFUL:
            self.assertLess(per, 256 * 1024,
                            "RSS grew %d KiB per stalled 3 MiB body" % (per // 1024))


class HeaderNames(unittest.TestCase):
    """White space before the colon: libmicrohttpd keeps the name with
    it, and the upstream must never see it."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.fake = h.fake("--quiet", seed="pods=2")
        cls.spy, cls.proxy = h.proxy_via_spy(cls.fake, "tok", cls.tmp, "pods")

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.spy.close()
        cls.fake.stop()

    def test_names_not_tokens_get_400(self):
        for name in ("Content-Length : 5", "X-Foo : bar\r\nContent-Length: 5",
                     "X Foo: bar\r\nContent-Length: 5", "X-Foo\t: bar\r\nContent-Length: 5"):
            with self.subTest(name=name):
                sock = socket.create_connection(host_port(self.proxy.url))
                try:
                    sock.sendall(head("POST", "/api/v1/namespaces/ns-1/configmaps",
                                      name.split("\r\n")) + b"hello")
                    s, body = read_answer(sock)
                finally:
                    sock.close()
                self.assertEqual(s, 400, body)
                st = json.loads(body)
                self.assertEqual((st["kind"], st["reason"]), ("Status", "BadRequest"))
        # a good request after them: the spy works, and saw none of them
        s, _, _ = h.request("GET", self.proxy.url + "/api/v1/namespaces/ns-1/configmaps")
        self.assertEqual(s, 200)
        self.assertEqual(self.spy.heads("POST"), [])
        self.assertTrue(self.spy.heads("GET /api/v1/namespaces/ns-1/configmaps"))


if __name__ == "__main__":
    unittest.main()
