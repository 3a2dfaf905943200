"""Idle watch streams written by the fan-out workers (proxy/fanout.c).

A watch with nothing to send is handed to one of several worker threads,
which write its events on the socket (plain or TLS) while libmicrohttpd
keeps the connection suspended, and give it back only to end the stream.
These cases check what that must not change:

- every watcher gets every event, once and in order, with several
  workers and concurrent writers, creates and deletes among them
  (bin/loadgen's checker), and the workers held the idle streams; the
  same when the reflector writes every woken stream itself
  (--watch-inline-max above the watchers), and when it writes one
  worker's share while the other workers write theirs;
- a watcher that stops reading falls behind and is expired exactly as
  before (its stream: a prefix of the events in order, then ERROR 410
  Expired, then a clean end), while the fast watchers beside it get
  everything;
- a stream's end (timeoutSeconds) is a clean end of the chunked body
  and the connection serves the next request, over plain HTTP and TLS;
- a watcher that hangs up is noticed without an event to send.

Nothing here asserts speed; `make bench` (B14) measures that.
"""
import http.client
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.parse

import certs
import harness

LOADGEN = os.path.join(harness.BIN, "loadgen")
VIOLATIONS = ("missed", "duplicated", "out_of_order", "unexpected", "mismatched")


def gauge(url, name):
    """The sum of name's samples, all labels together; None if absent."""
    st, _, body = harness.request("GET", url + "/metrics")
    vs = re.findall(r"^%s(?:\{[^}]*\})? (\d+)" % name, body.decode(), re.M)
    return sum(int(v) for v in vs) if vs else None


def patch(fake_url, ns, name, body):
    u = urllib.parse.urlsplit(fake_url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        c.request("PATCH", "/api/v1/namespaces/%s/pods/%s" % (ns, name), json.dumps(body),
                  {"Content-Type": "application/merge-patch+json"})
        r = c.getresponse()
        data = r.read()
        if r.status != 200:
            raise AssertionError("PATCH %s: %d %s" % (name, r.status, data[:200]))
        return json.loads(data)
    finally:
        c.close()


def list_rv(url, ns):
    st, _, body = harness.request("GET", url + "/api/v1/namespaces/%s/pods?limit=1" % ns)
    return json.loads(body)["metadata"]["resourceVersion"]


def read_chunked(sock, deadline):
    """Read one chunked body from sock until its last chunk; returns
    (the body, whether the last chunk came). Headers must be read first."""
    buf, body = b"", b""
    while True:
        while b"\r\n" not in buf:
            d = sock.recv(65536) if time.time() < deadline else b""
            if not d:
                return body, False
            buf += d
        size_line, _, buf = buf.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        while len(buf) < size + 2:
            d = sock.recv(65536) if time.time() < deadline else b""
            if not d:
                return body + buf[:size], False
            buf += d
        if size == 0:
            return body, True
        body += buf[:size]
        buf = buf[size + 2:]


def read_head(sock, deadline):
    data = b""
    while b"\r\n\r\n" not in data and time.time() < deadline:
        d = sock.recv(1)
        if not d:
            break
        data += d
    return data


class FanOut(unittest.TestCase):
    def test_every_watcher_every_event_in_order_on_four_workers(self):
        # 150 streams a worker: more than the reflector writes itself
        self.every_event_in_order()

    def test_every_event_in_order_when_the_reflector_writes_every_stream(self):
        self.every_event_in_order("--watch-inline-max", "1000")

    def test_every_event_in_order_when_the_reflector_writes_one_share(self):
        # one worker's 150 fit in 200, the next ones do not: the
        # reflector writes one share while the other workers write theirs
        self.every_event_in_order("--watch-inline-max", "200")

    def every_event_in_order(self, *flags):
        if not os.access(LOADGEN, os.X_OK):
            raise AssertionError("bin/loadgen is missing: `make` builds it")
        # four workers on two cores: streams of one worker are written
        # while another's are, and beside the appends
        fake, proxy = harness.fake_and_proxy(self, "pods", "--threads", "4",
                                             *flags, seed="pods=200")
        seen = []
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                v = gauge(proxy.url, "informer_proxy_watch_fanout_streams")
                if v is not None:
                    seen.append(v)
                time.sleep(0.2)
        t = threading.Thread(target=sample, daemon=True)
        t.start()
        p = subprocess.run(
            [LOADGEN, "--quiet", "--target", proxy.url, "--writer", fake.url,
             "--watchers", "600", "--write-rate", "60", "--writers", "4",
             "--create-pct", "10", "--delete-pct", "10", "--duration", "4",
             "--drain", "20"], capture_output=True, text=True, timeout=180)
        stop.set()
        t.join(5)
        lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
        self.assertEqual(len(lines), 1, p.stdout + p.stderr)
        out = json.loads(lines[0])
        err = p.stderr[-2000:]
        self.assertEqual({k: out["violations"][k] for k in VIOLATIONS},
                         {k: 0 for k in VIOLATIONS}, err)
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(out["watchers"], 600)
        self.assertEqual((out["expired"], out["reconnects"], out["errors"]), (0, 0, 0), err)
        self.assertGreater(out["writes"], 50)
        self.assertEqual(out["deliveries"], out["expected"], err)
        # the idle streams were the workers' (most of the 600 at once)
        self.assertTrue(seen and max(seen) >= 300, seen)
        harness.wait_until(lambda: gauge(proxy.url, "informer_proxy_watch_fanout_streams") == 0,
                           timeout=20, what="the workers hold no stream once all left")
        harness.wait_until(lambda: gauge(proxy.url, "informer_proxy_watchers") == 0,
                           timeout=20, what="open watchers back to 0")

    def test_a_watcher_that_stops_reading_is_expired_and_the_others_are_not(self):
        fake, proxy = harness.fake_and_proxy(self, "pods", "--history", "16",
                                             "--threads", "2", seed="pods=20")
        rv = list_rv(proxy.url, "ns-1")
        u = urllib.parse.urlsplit(proxy.url)
        path = "/api/v1/namespaces/ns-1/pods?watch=true&resourceVersion=%s" % rv
        slow = []
        for _ in range(2):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.settimeout(30)
            s.connect((u.hostname, u.port))
            s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, u.netloc)).encode())
            self.addCleanup(s.close)
            slow.append(s)
        fast = [harness.Watch(proxy.url + path) for _ in range(3)]
        for w in fast:
            self.addCleanup(w.close)
        harness.wait_until(lambda: gauge(proxy.url, "informer_proxy_watch_fanout_streams") == 5,
                           timeout=20, what="the five idle streams in the workers")
        big = "x" * 40000
        n = 300
        for i in range(n):
            patch(fake.url, "ns-1", "web-1", {"metadata": {"annotations": {"i": str(i), "big": big}}})
        for w in fast:
            evs = w.wait_for(n, timeout=60)
            got = [e["object"]["metadata"]["annotations"]["i"] for e in evs]
            self.assertEqual(got, [str(i) for i in range(n)])
            self.assertTrue(all(e["type"] == "MODIFIED" for e in evs))
        # the slow ones read now: a prefix of the events, in order, then
        # the 410 the apiserver sends a watcher it can no longer serve,
        # then the end of the stream
        for s in slow:
            deadline = time.time() + 60
            head = read_head(s, deadline)
            self.assertIn(b" 200 ", head.split(b"\r\n")[0])
            body, ended = read_chunked(s, deadline)
            self.assertTrue(ended, "the expired stream did not end cleanly")
            lines = [json.loads(l) for l in body.splitlines() if l]
            self.assertEqual(lines[-1]["type"], "ERROR", lines[-1])
            self.assertEqual((lines[-1]["object"]["code"], lines[-1]["object"]["reason"]),
                             (410, "Expired"))
            got = [e["object"]["metadata"]["annotations"]["i"] for e in lines[:-1]]
            self.assertEqual(got, [str(i) for i in range(len(got))])
            self.assertLess(len(got), n)
        self.assertGreaterEqual(gauge(proxy.url, "informer_proxy_slow_watchers_expired_total") or 0, 2)

    def _end_and_reuse(self, conn, path, want):
        conn.request("GET", path)
        r = conn.getresponse()
        self.assertEqual(r.status, 200)
        self.assertEqual(r.getheader("Transfer-Encoding"), "chunked")
        evs = []
        while True:
            line = r.readline()
            if not line:
                break
            evs.append(json.loads(line))
        r.read()  # raises IncompleteRead unless the body ended whole
        self.assertFalse(r.will_close is True and r.isclosed() is False)
        sock = conn.sock
        self.assertIsNotNone(sock, "the connection closed after the watch")
        # the same connection answers the next request
        conn.request("GET", want)
        r2 = conn.getresponse()
        self.assertEqual(r2.status, 200)
        json.loads(r2.read())
        self.assertIs(conn.sock, sock)
        return evs

    def test_a_stream_ends_cleanly_and_the_connection_goes_on(self):
        fake, proxy = harness.fake_and_proxy(self, "pods", seed="pods=20")
        rv = list_rv(proxy.url, "ns-2")
        u = urllib.parse.urlsplit(proxy.url)
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        self.addCleanup(conn.close)
        threading.Timer(0.5, lambda: patch(fake.url, "ns-2", "web-2",
                                           {"metadata": {"labels": {"a": "1"}}})).start()
        evs = self._end_and_reuse(
            conn, "/api/v1/namespaces/ns-2/pods?watch=true&timeoutSeconds=3&resourceVersion=" + rv,
            "/api/v1/namespaces/ns-2/pods?limit=1")
        self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in evs],
                         [("MODIFIED", "web-2")])

    def test_a_watcher_that_hangs_up_is_let_go(self):
        fake, proxy = harness.fake_and_proxy(self, "pods", seed="pods=20")
        pid = proxy.proc.pid
        # the clients' connections only: the upstream ones (the prober's,
        # a forwarded read's) open and close on their own schedule
        rv = list_rv(proxy.url, "ns-1")
        fds0 = harness.accepted_fds(pid, proxy.url)
        ws = [harness.Watch(proxy.url + "/api/v1/pods?watch=true&resourceVersion=" + rv)
              for _ in range(20)]
        harness.wait_until(lambda: gauge(proxy.url, "informer_proxy_watch_fanout_streams") == 20,
                           timeout=20, what="20 idle streams in the workers")
        for w in ws:
            w.close()
        # no event is written: the workers learn of the hang-ups alone
        harness.wait_until(lambda: gauge(proxy.url, "informer_proxy_watchers") == 0,
                           timeout=20, what="open watchers back to 0")
        self.assertEqual(gauge(proxy.url, "informer_proxy_watch_fanout_streams"), 0)
        if not harness.poll(lambda: harness.accepted_fds(pid, proxy.url) <= fds0,
                            timeout=20):
            self.fail("client connections not back to %d: %d"
                      % (fds0, harness.accepted_fds(pid, proxy.url)))


class FanOutTLS(unittest.TestCase):
    """The TLS listener's streams are written through their GnuTLS
    session by the workers."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="fanout-tls-")
        cls.pki = certs.make_pki(os.path.join(cls.tmp, "pki"))
        cls.fake = harness.fake("--quiet", seed="pods=20")
        try:
            cls.proxy = harness.proxy(cls.fake.url, "pods", "--threads", "3",
                                      "--tls-cert-file", cls.pki["server_cert"],
                                      "--tls-private-key-file", cls.pki["server_key"])
        except Exception:
            cls.fake.stop(check=False)
            raise
        cls.unregister = harness.register(cls.proxy.url, cls.pki["ca"])
        harness.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.unregister()
        cls.proxy.stop()
        cls.fake.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def conn(self):
        u = urllib.parse.urlsplit(self.proxy.url)
        c = http.client.HTTPSConnection(
            u.hostname, u.port, timeout=30,
            context=ssl.create_default_context(cafile=self.pki["ca"]))
        self.addCleanup(c.close)
        return c

    def test_tls_watchers_get_every_event_in_order_and_end_cleanly(self):
        rv = list_rv(self.proxy.url, "ns-3")
        n, watchers = 40, 6
        results = [None] * watchers

        def watch(i):
            c = self.conn()
            try:
                results[i] = FanOut._end_and_reuse(
                    self, c, "/api/v1/namespaces/ns-3/pods?watch=true&timeoutSeconds=6"
                    "&resourceVersion=" + rv, "/api/v1/namespaces/ns-3/pods?limit=1")
            except Exception as e:  # reported below
                results[i] = e
        ts = [threading.Thread(target=watch, args=(i,)) for i in range(watchers)]
        for t in ts:
            t.start()
        harness.wait_until(
            lambda: (gauge(self.proxy.url, "informer_proxy_watch_fanout_streams") or 0) >= watchers,
            timeout=20, what="the TLS streams in the workers")
        big = "y" * 20000  # records of several TLS frames
        for i in range(n):
            patch(self.fake.url, "ns-3", "web-3",
                  {"metadata": {"annotations": {"i": str(i), "big": big}}})
        for t in ts:
            t.join(60)
        for r in results:
            self.assertIsInstance(r, list, r)
            got = [e["object"]["metadata"]["annotations"]["i"] for e in r
                   if e["type"] == "MODIFIED"]
            self.assertEqual(got, [str(i) for i in range(n)])
            self.assertEqual(r[-1]["object"]["metadata"]["annotations"]["big"], big)


if __name__ == "__main__":
    unittest.main()


class ConnectionMemory(unittest.TestCase):
    """--connection-memory-kib sizes each connection's memory for what a
    watch needs once its request is in: a request header must fit."""

    def get_with_header(self, url, size):
        u = urllib.parse.urlsplit(url)
        c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        self.addCleanup(c.close)
        c.request("GET", "/api/v1/namespaces/ns-1/pods?limit=1", headers={"X-Pad": "p" * size})
        r = c.getresponse()
        r.read()
        return r.status

    def test_a_header_must_fit_in_the_connection_memory(self):
        fake, proxy = harness.fake_and_proxy(self, "pods", seed="pods=5")
        # a real client's headers, a long token among them, fit
        self.assertEqual(self.get_with_header(proxy.url, 8000), 200)
        self.assertEqual(self.get_with_header(proxy.url, 40000), 431)
        fake2, big = harness.fake_and_proxy(self, "pods", "--connection-memory-kib", "64",
                                            seed="pods=5")
        self.assertEqual(self.get_with_header(big.url, 40000), 200)
