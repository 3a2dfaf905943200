"""Framing on a kept-alive connection: an answer HTTP gives no body (a
304, a 204, any answer to a HEAD) is sent with none, not even a chunked
stream's last chunk, so the next answer on the connection parses.

Each test sends a first request on a raw socket, reads its answer's head,
waits until any stray bytes would have arrived, then sends a second
request on the same connection: the bytes after the first head must be
the second answer's status line. Covered: the upstream's 304 to a
conditional GET of /openapi/v2 and /openapi/v3 (the fake answers
If-None-Match with its ETag, as the apiserver does; kubectl's openapi
cache sends one on every run), and HEAD of answers the cache streams
(a watch, a Table list sent gzip-compressed as it is rendered).
"""
import os
import socket
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import harness as h  # noqa: E402

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
SECOND = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"


def read_until(sock, data, pred, timeout):
    deadline = time.monotonic() + timeout
    while not pred(data) and time.monotonic() < deadline:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            d = sock.recv(65536)
        except socket.timeout:
            break
        if not d:
            break
        data += d
    return data


class Framing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", seed="pods=300,configmaps=3")
        p = h.proxy(cls.fake.url, "pods")
        cls.proxy = p
        h.wait_ready(p.url)
        host, port = p.url.split("//")[1].split(":")
        cls.addr = (host, int(port))

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def two(self, first):
        """The first answer's head, and what followed it on the
        connection once a second request was answered."""
        with socket.create_connection(self.addr, timeout=30) as s:
            s.sendall(first.encode())
            data = read_until(s, b"", lambda d: b"\r\n\r\n" in d, 30)
            self.assertIn(b"\r\n\r\n", data, data[:300])
            # whatever the proxy still sends for the first answer is in
            # by now (it is written with the head, or right after)
            data = read_until(s, data, lambda d: False, 1.0)
            s.sendall(SECOND.encode())
            data = read_until(s, data, lambda d: d.endswith(b"ok"), 30)
        head, _, rest = data.partition(b"\r\n\r\n")
        return head.decode("latin-1"), rest

    def assert_framed(self, head, rest):
        self.assertTrue(rest.startswith(b"HTTP/1.1 200 "),
                        "after the first answer's head: %r\n(head: %s)" % (rest[:200], head))
        self.assertTrue(rest.endswith(b"\r\n\r\nok"), rest[-200:])
        self.assertNotIn("transfer-encoding", head.lower(), head)

    def etag(self, path):
        st, hdrs, _ = h.request("GET", self.proxy.url + path)
        self.assertEqual(st, 200)
        tag = dict((k.lower(), v) for k, v in hdrs.items()).get("etag")
        self.assertTrue(tag, hdrs)
        return tag

    def test_passthrough_304(self):
        for path in ("/openapi/v2", "/openapi/v3"):
            with self.subTest(path=path):
                tag = self.etag(path)
                head, rest = self.two(
                    "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
                    "If-None-Match: %s\r\n\r\n" % (path, tag))
                self.assertTrue(head.startswith("HTTP/1.1 304 "), head)
                self.assertIn("etag: %s" % tag.lower(), head.lower())
                self.assert_framed(head, rest)

    def test_head_of_streamed_answers(self):
        for target, extra in (("/api/v1/pods?watch=1", ""),
                              ("/api/v1/pods", "Accept: %s\r\nAccept-Encoding: gzip\r\n" % TABLE),
                              ("/api/v1/pods?pretty=true", "Accept-Encoding: gzip\r\n")):
            with self.subTest(target=target):
                head, rest = self.two("HEAD %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n" % (target, extra))
                self.assertTrue(head.startswith("HTTP/1.1 200 "), head)
                self.assert_framed(head, rest)


if __name__ == "__main__":
    unittest.main()
