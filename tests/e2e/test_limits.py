"""Connection and watcher limits (issue: hardening): a client past a limit
gets a prompt 429 Status with Retry-After, never a hang; health probes go
through on a reserve; a slowloris that never finishes its request header
is cut off after --header-timeout; a silent connection after
--idle-timeout, while a watch is never idle; and the open-file limit is
raised at start, the connection limit lowered to what it leaves room for.
"""
import json
import os
import re
import socket
import threading
import time
import unittest

import harness as h


def hostport(url):
    host, port = url.split("//")[1].split(":")
    return host, int(port)


def metric(url, name, labels=""):
    body = h.request("GET", url + "/metrics", timeout=10)[2].decode()
    m = re.search(r"^%s%s (\S+)$" % (re.escape(name), re.escape(labels)), body, re.M)
    return float(m.group(1)) if m else None


def send_request(url, path, timeout=10):
    """A socket that has sent a whole GET request for path."""
    s = socket.create_connection(hostport(url), timeout=timeout)
    s.sendall(("GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n" % path).encode())
    return s


def read_head(s):
    """The status code and the headers (lower-case names) of the answer on
    s; raises socket.timeout when the answer does not come."""
    data = b""
    while b"\r\n\r\n" not in data:
        d = s.recv(4096)
        if not d:
            raise ConnectionError("closed before an answer: %r" % data)
        data += d
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    hdrs = {k.strip().lower(): v.strip() for k, _, v in
            (ln.partition(":") for ln in lines[1:])}
    return int(lines[0].split()[1]), hdrs, rest


def closed_by_peer(s):
    """True when the proxy has closed s (EOF or reset), without blocking."""
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        s.setblocking(True)


class Slowloris:
    """n sockets, each sending one more byte of a request header that never
    ends, every second, until stop()."""

    HEAD = b"GET /api/v1/pods HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 4000

    def __init__(self, url, n):
        self.socks = []
        for _ in range(n):
            s = socket.socket()
            s.setblocking(False)
            try:
                s.connect(hostport(url))
            except BlockingIOError:
                pass   # accepted by the kernel; the proxy takes it when it can
            self.socks.append(s)
        self.closed = set()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._trickle, daemon=True)
        self.thread.start()

    def _trickle(self):
        pos = 0
        while not self.stopping.is_set():
            for i, s in enumerate(self.socks):
                if i in self.closed:
                    continue
                try:
                    if s.recv(1) == b"":
                        self.closed.add(i)
                        continue
                except BlockingIOError:
                    pass
                except OSError:
                    self.closed.add(i)
                    continue
                try:
                    s.send(self.HEAD[pos:pos + 1])
                except BlockingIOError:
                    pass
                except OSError:
                    self.closed.add(i)
            pos = (pos + 1) % len(self.HEAD)
            self.stopping.wait(1.0)

    def open_count(self):
        return len(self.socks) - len(self.closed)

    def stop(self):
        self.stopping.set()
        self.thread.join()
        for s in self.socks:
            s.close()


def assert_429(test, status, hdrs, body):
    test.assertEqual(status, 429, body[:300])
    test.assertTrue(hdrs.get("retry-after", "").isdigit(), hdrs)
    st = json.loads(body)
    test.assertEqual((st["kind"], st["apiVersion"], st["status"], st["reason"], st["code"]),
                     ("Status", "v1", "Failure", "TooManyRequests", 429))


def answer(url, path, timeout=10):
    """(status, headers, body) of GET path on a fresh connection, closed."""
    s = send_request(url, path, timeout)
    try:
        status, hdrs, rest = read_head(s)
        if "content-length" in hdrs:
            n = int(hdrs["content-length"])
            while len(rest) < n:
                d = s.recv(65536)
                if not d:
                    break
                rest += d
        return status, hdrs, rest
    finally:
        s.close()


class MaxConnections(unittest.TestCase):
    def setUp(self):
        self.fake = h.fake("--quiet", seed="pods=3")
        self.addCleanup(self.fake.stop)

    def start(self, *extra):
        proxy = h.proxy(self.fake.url, "pods", *extra)
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        return proxy

    def test_slowloris_gets_429_and_health_goes_through(self):
        proxy = self.start("--max-connections", "200")
        slow = Slowloris(proxy.url, 300)
        self.addCleanup(slow.stop)
        time.sleep(1.0)
        # a new client is refused promptly: a Status, not a hang
        t0 = time.time()
        status, hdrs, body = answer(proxy.url, "/api/v1/pods", timeout=10)
        self.assertLess(time.time() - t0, 5.0, "the 429 took too long")
        assert_429(self, status, hdrs, body)
        self.assertEqual(hdrs.get("connection", "").lower(), "close")
        # the probes go through on the reserve, promptly
        for path in ("/healthz", "/livez", "/readyz"):
            t0 = time.time()
            self.assertEqual(answer(proxy.url, path)[0], 200, path)
            self.assertLess(time.time() - t0, 5.0, path)
        # the default header timeout (32 s) leaves the first 200 open
        self.assertGreaterEqual(slow.open_count(), 200)
        self.assertGreaterEqual(metric(proxy.url, "informer_proxy_open_connections"), 200)
        self.assertGreaterEqual(metric(proxy.url, "informer_proxy_refusals_total",
                                       '{reason="max_connections"}'), 1)
        self.assertEqual(metric(proxy.url, "informer_proxy_max_connections"), 200)

    def test_header_timeout_cuts_slowloris(self):
        proxy = self.start("--max-connections", "200", "--header-timeout", "3")
        t0 = time.time()
        slow = Slowloris(proxy.url, 300)
        self.addCleanup(slow.stop)
        time.sleep(2.0)
        # within the timeout the first 200 stay (the reserve does not)
        self.assertGreaterEqual(slow.open_count(), 200)
        h.wait_until(lambda: slow.open_count() == 0, timeout=10,
                     what="the proxy to close every slowloris socket")
        self.assertLess(time.time() - t0, 3 + 6, "cut off too late")
        self.assertEqual(answer(proxy.url, "/api/v1/pods")[0], 200)
        self.assertGreaterEqual(metric(proxy.url, "informer_proxy_connections_cut_total",
                                       '{reason="header_timeout"}'), 200)
        h.wait_until(lambda: metric(proxy.url, "informer_proxy_open_connections") == 1,
                     timeout=5, what="no connection but the scrape's own")


class HealthReserve(unittest.TestCase):
    """The reserve past --max-connections answers one health probe per
    connection and closes it: kept-alive probes cannot hold it."""

    def setUp(self):
        self.fake = h.fake("--quiet", seed="pods=3")
        self.addCleanup(self.fake.stop)
        self.proxy = h.proxy(self.fake.url, "pods", "--max-connections", "8",
                             "--metrics-listen", "127.0.0.1:0")
        self.addCleanup(self.proxy.stop)
        h.wait_ready(self.proxy.url)
        # The tests take the 8 slots themselves. A connection still open
        # when they do (the readiness probe's, its close not yet seen by
        # the proxy) holds a slot and puts one of theirs on the reserve;
        # once it goes, a slot is free and a probe gets it without
        # Connection: close. So wait until none is left, counted from the
        # metrics port, whose connections are not counted.
        murl = self.proxy.metrics_url()
        h.wait_until(lambda: metric(murl, "informer_proxy_open_connections") == 0,
                     timeout=10, what="no client connection open")

    def open_now(self, n):
        """Wait until the proxy has taken n client connections in: a
        connection made is not yet one it counts, and under load the
        accept can come late (the metrics port's are not counted)."""
        murl = self.proxy.metrics_url()
        h.wait_until(lambda: metric(murl, "informer_proxy_open_connections") == n,
                     timeout=10, what="%d client connections open" % n)

    def hold(self, n, path=None):
        """n connections, each having sent a GET for path (none: nothing
        sent), closed at cleanup."""
        socks = []
        for _ in range(n):
            s = socket.create_connection(hostport(self.proxy.url), timeout=10)
            self.addCleanup(s.close)
            if path:
                s.sendall(("GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n" % path).encode())
            socks.append(s)
        return socks

    def test_kept_alive_probes_do_not_hold_the_reserve(self):
        # 8 + the reserve of 64 and as many again, each a kept-alive probe
        # that asks again every half second for as long as it is open
        socks = self.hold(8 + 64 + 100, "/healthz")
        stop = threading.Event()

        def reprobe():
            while not stop.wait(0.5):
                for s in socks:
                    try:
                        s.setblocking(False)
                        s.recv(65536)
                    except OSError:
                        pass
                    try:
                        s.send(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    except OSError:
                        pass
        t = threading.Thread(target=reprobe, daemon=True)
        t.start()
        self.addCleanup(t.join)
        self.addCleanup(stop.set)   # cleanups run last first
        time.sleep(2.0)
        for path in ("/healthz", "/readyz"):
            status, hdrs, _ = answer(self.proxy.url, path, timeout=10)
            self.assertEqual(status, 200, path)
            self.assertEqual(hdrs.get("connection", "").lower(), "close", path)
        # a read is answered, not left hanging: the 8 slots are held by
        # clients that keep asking, so it is told to come back
        status, hdrs, body = answer(self.proxy.url, "/api/v1/pods", timeout=10)
        assert_429(self, status, hdrs, body)

    def test_reserve_answers_health_only_and_closes(self):
        self.hold(8)   # every slot, silent (the header timeout is 32 s)
        self.open_now(8)
        s = send_request(self.proxy.url, "/healthz")
        self.addCleanup(s.close)
        status, hdrs, _ = read_head(s)
        self.assertEqual(status, 200)
        self.assertEqual(hdrs.get("connection", "").lower(), "close")
        h.wait_until(lambda: closed_by_peer(s), timeout=5,
                     what="the reserve connection to be closed")
        # a reserve connection that sends nothing is closed soon
        quiet = socket.create_connection(hostport(self.proxy.url), timeout=10)
        self.addCleanup(quiet.close)
        h.wait_until(lambda: closed_by_peer(quiet), timeout=10,
                     what="the silent reserve connection to be closed")

    def test_reserve_connection_stays_on_the_reserve(self):
        held = self.hold(8)
        self.open_now(8)
        # a connection on the reserve that has sent half a header
        r = socket.create_connection(hostport(self.proxy.url), timeout=10)
        self.addCleanup(r.close)
        r.sendall(b"GET /api/v1/pods HTTP/1.1\r\n")
        self.open_now(9)   # taken in while every slot is held
        for s in held:   # the slots come free ...
            s.close()
        time.sleep(0.3)
        # ... but a connection taken on the reserve still serves probes only
        r.sendall(b"Host: localhost\r\n\r\n")
        status, hdrs, _ = read_head(r)
        self.assertEqual(status, 429)
        self.assertEqual(hdrs.get("connection", "").lower(), "close")


class MaxWatchers(unittest.TestCase):
    def test_sixth_watch_is_refused_until_one_closes(self):
        fake = h.fake("--quiet", seed="pods=3")
        self.addCleanup(fake.stop)
        proxy = h.proxy(fake.url, "pods", "--max-watchers", "5")
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        url = proxy.url + "/api/v1/pods?watch=1&resourceVersion=0"
        watches = []
        for _ in range(5):
            w = h.Watch(url, timeout=10)
            watches.append(w)
            self.addCleanup(w.close)
            self.assertEqual(w.status, 200)
        status, hdrs, body = answer(proxy.url, "/api/v1/pods?watch=1&resourceVersion=0",
                                    timeout=5)
        assert_429(self, status, hdrs, body)
        # the legacy /watch/ prefix is a watch too
        status, hdrs, body = answer(proxy.url, "/api/v1/watch/pods", timeout=5)
        assert_429(self, status, hdrs, body)
        self.assertEqual(metric(proxy.url, "informer_proxy_watchers", '{resource="pods"}'), 5)
        self.assertEqual(metric(proxy.url, "informer_proxy_refusals_total",
                                '{reason="max_watchers"}'), 2)
        # a LIST is not a watch
        self.assertEqual(answer(proxy.url, "/api/v1/pods")[0], 200)
        watches[0].close()
        h.wait_until(lambda: metric(proxy.url, "informer_proxy_watchers", '{resource="pods"}') == 4,
                     timeout=10, what="the closed watch to be counted out")
        w = h.Watch(url, timeout=10)
        self.addCleanup(w.close)
        self.assertEqual(w.status, 200)
        self.assertEqual(len(w.wait_for(3)), 3)


class OpenFileLimit(unittest.TestCase):
    def start(self, nofile):
        fake = h.fake("--quiet", seed="pods=3")
        self.addCleanup(fake.stop)
        proxy = h.Server("informer-proxy", [
            "prlimit", "--nofile=" + nofile, "--",
            os.path.join(h.BIN, "informer-proxy"), "--listen", "127.0.0.1:0",
            "--server", fake.url, "--resources", "pods"])
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        return proxy

    def open_watches(self, proxy, n):
        """n watch requests, one after the other; the status of each, and
        the sockets of those answered 200 (left open)."""
        codes, kept = [], []
        for _ in range(n):
            s = send_request(proxy.url, "/api/v1/pods?watch=1&resourceVersion=0",
                             timeout=10)
            status = read_head(s)[0]   # a hang raises socket.timeout
            codes.append(status)
            if status == 200:
                kept.append(s)
            else:
                s.close()
        for s in kept:
            self.addCleanup(s.close)
        return codes, kept

    def test_soft_limit_is_raised_to_the_hard_one(self):
        proxy = self.start("256:4096")
        # more connections than the soft limit has descriptors for
        codes, _ = self.open_watches(proxy, 300)
        self.assertEqual(codes, [200] * 300)
        self.assertEqual(answer(proxy.url, "/healthz")[0], 200)
        self.assertRegex(proxy.logs(), r"RLIMIT_NOFILE raised from 256 to 4096")

    def test_hard_limit_lowers_max_connections(self):
        proxy = self.start("256:256")
        # (the probes' connections gone, so that the count is exact)
        h.wait_until(lambda: metric(proxy.url, "informer_proxy_open_connections") == 1,
                     timeout=5, what="no connection but the scrape's own")
        # more than the descriptors allow: 429s, not hangs
        codes, kept = self.open_watches(proxy, 300)
        self.assertEqual(codes.count(200) + codes.count(429), 300, codes)
        self.assertGreater(codes.count(429), 0)
        logs = proxy.logs()
        self.assertRegex(logs, r"RLIMIT_NOFILE 256 \(the hard limit\)")
        m = re.search(r"--max-connections 16384 lowered to (\d+)", logs)
        self.assertTrue(m, logs[-2000:])
        limit = int(m.group(1))
        self.assertEqual(codes, [200] * limit + [429] * (300 - limit))
        self.assertEqual(metric(proxy.url, "informer_proxy_max_connections"), limit)
        # and the proxy keeps serving: probes now, everything once they leave
        self.assertEqual(answer(proxy.url, "/readyz")[0], 200)
        self.assertEqual(answer(proxy.url, "/api/v1/pods")[0], 429)
        for s in kept:
            s.close()
        h.wait_until(lambda: answer(proxy.url, "/api/v1/pods")[0] == 200, timeout=10,
                     what="a LIST once the watches left")


class IdleTimeout(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", seed="pods=3")
        cls.proxy = h.proxy(cls.fake.url, "pods", "--idle-timeout", "2",
                            "--bookmark-interval", "1")
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def test_silent_keep_alive_is_closed(self):
        s = send_request(self.proxy.url, "/healthz")
        self.addCleanup(s.close)
        self.assertEqual(read_head(s)[0], 200)
        t0 = time.time()
        while s.recv(4096):
            pass   # EOF from the proxy, or a timeout
        self.assertLess(time.time() - t0, 5.0)

    def test_silent_connection_is_closed_but_not_a_watch(self):
        base = self.proxy.url + "/api/v1/pods?watch=1&resourceVersion=0"
        with_bm = h.Watch(base + "&allowWatchBookmarks=true", timeout=30)
        self.addCleanup(with_bm.close)
        without = h.Watch(base, timeout=30)
        self.addCleanup(without.close)
        self.assertEqual(len(with_bm.wait_for(4)), 4)   # 3 ADDED and the end bookmark
        self.assertEqual(len(without.wait_for(3)), 3)
        s = socket.create_connection(hostport(self.proxy.url), timeout=10)
        self.addCleanup(s.close)
        t0 = time.time()
        self.assertEqual(s.recv(1), b"")
        self.assertLess(time.time() - t0, 5.0)
        time.sleep(max(0.0, 5 - (time.time() - t0)))   # past two idle timeouts
        self.assertFalse(with_bm.closed or without.closed)
        st, _, raw = h.request("PATCH", self.fake.url + "/api/v1/namespaces/ns-0/pods/web-0",
                               body=json.dumps({"metadata": {"labels": {"late": "1"}}}).encode(),
                               headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(st, 200, raw[:300])
        for w, n in ((with_bm, 5), (without, 4)):
            evs = [e for e in w.wait_for(n, timeout=10) if e["type"] == "MODIFIED"]
            self.assertEqual(len(evs), 1, w.events)


if __name__ == "__main__":
    unittest.main()
