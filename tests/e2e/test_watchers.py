"""Thousands of watchers on one proxy: every one gets every event, and
the proxy gives back what they held once they leave.

A small-scale B14 (docs/PERFORMANCE.md): bin/loadgen opens 2000 watch
streams on the proxy and writes through the fake; its checker must find
every watcher saw every event it should have, once and in order. Once
the watchers close, the proxy's descriptors and open-watcher gauge must
come back to where they were, and its RSS to within 10% (plus a few MB
of slack) of its level before them: the ticker gives freed heap back
every 10 s.

A watch from an HTTP/1.0 client is sent without chunked encoding, the
one path where libmicrohttpd reads a watch through the response's own
block (proxy/watch.c's WATCH_BLOCK, smaller than an event): the event
must still arrive whole.

Nothing here asserts speed; `make bench` (B14) measures that.
"""
import http.client
import json
import os
import re
import socket
import subprocess
import time
import unittest

import harness

LOADGEN = os.path.join(harness.BIN, "loadgen")
VIOLATIONS = ("missed", "duplicated", "out_of_order", "unexpected", "mismatched")
WATCHERS = 2000


def gauge(url, name):
    """The sum of name's samples, all labels together; None if absent."""
    st, _, body = harness.request("GET", url + "/metrics")
    vs = re.findall(r"^%s(?:\{[^}]*\})? (\d+)" % name, body.decode(), re.M)
    return sum(int(v) for v in vs) if vs else None


class ManyWatchers(unittest.TestCase):
    def setUp(self):
        if not os.access(LOADGEN, os.X_OK):
            raise AssertionError("bin/loadgen is missing: `make` builds it")
        self.fake, self.proxy = harness.fake_and_proxy(self, "pods", seed="pods=200")

    def test_every_watcher_gets_every_event_and_memory_comes_back(self):
        pid = self.proxy.proc.pid
        # the watchers' reads without resourceVersion make the prober open
        # its kept-alive upstream connection (a socket, and the socket pair
        # of its libcurl multi handle) once: open it before counting
        s, _ = harness.get_json(self.proxy.url + "/api/v1/pods?limit=1")
        self.assertEqual(s, 200)
        time.sleep(0.5)
        fds0, rss0 = harness.open_fds(pid), harness.rss_bytes(pid)
        p = subprocess.run(
            [LOADGEN, "--quiet", "--target", self.proxy.url, "--writer", self.fake.url,
             "--watchers", str(WATCHERS), "--write-rate", "20", "--duration", "3",
             "--drain", "15"], capture_output=True, text=True, timeout=120)
        lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
        self.assertEqual(len(lines), 1, p.stdout + p.stderr)
        out = json.loads(lines[0])
        err = p.stderr[-2000:]
        self.assertEqual({k: out["violations"][k] for k in VIOLATIONS},
                         {k: 0 for k in VIOLATIONS}, err)
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(out["watchers"], WATCHERS)
        self.assertEqual(out["expired"], 0, err)
        self.assertEqual(out["reconnects"], 0, err)
        self.assertEqual(out["errors"], 0, err)
        self.assertGreater(out["writes"], 0)
        # every expected delivery arrived, and nothing else
        self.assertEqual(out["deliveries"], out["expected"], err)
        self.assertGreaterEqual(out["deliveries"], out["writes"] * WATCHERS * 0.9)

        harness.wait_until(lambda: gauge(self.proxy.url, "informer_proxy_watchers") == 0,
                           timeout=10, what="open watchers back to 0")
        # generous: under load libmicrohttpd closes the 2,000 sockets late
        if not harness.poll(lambda: harness.open_fds(pid) <= fds0, timeout=30):
            self.fail("descriptors not back to %d: %d open"
                      % (fds0, harness.open_fds(pid)))
        if not harness.RSS_MEANINGFUL:
            return
        limit = rss0 * 1.1 + (4 << 20)
        # freed memory goes back every 10 s (alloc_give_back()); on a
        # loaded machine give it a few rounds
        ok = harness.poll(lambda: harness.rss_bytes(pid) <= limit, timeout=60, interval=0.5)
        self.assertTrue(ok, "RSS %.1f MB after the watchers left, %.1f MB before" % (
            harness.rss_bytes(pid) / 1e6, rss0 / 1e6))

    def test_http10_watch_gets_whole_events(self):
        st, _, body = harness.request("GET", self.proxy.url + "/api/v1/namespaces/ns-1/pods?limit=1")
        rv = json.loads(body)["metadata"]["resourceVersion"]
        host, port = re.match(r"http://([^:/]+):(\d+)", self.proxy.url).groups()
        s = socket.create_connection((host, int(port)), timeout=10)
        self.addCleanup(s.close)
        s.sendall(("GET /api/v1/namespaces/ns-1/pods?watch=true&resourceVersion=%s "
                   "HTTP/1.0\r\nHost: localhost\r\n\r\n" % rv).encode())
        time.sleep(0.3)
        # a big annotation makes the event several times WATCH_BLOCK
        big = "x" * 6000
        fh, fp = re.match(r"http://([^:/]+):(\d+)", self.fake.url).groups()
        c = http.client.HTTPConnection(fh, int(fp), timeout=10)
        c.request("PATCH", "/api/v1/namespaces/ns-1/pods/web-1",
                  json.dumps({"metadata": {"annotations": {"big": big}}}),
                  {"Content-Type": "application/merge-patch+json"})
        self.assertEqual(c.getresponse().status, 200)
        c.close()
        data = b""
        deadline = time.time() + 10
        while b"\n" not in data.split(b"\r\n\r\n", 1)[-1] and time.time() < deadline:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        self.assertIn(b" 200 ", head.split(b"\r\n")[0], head)
        self.assertNotIn(b"chunked", head.lower())
        line = rest.split(b"\n", 1)[0]
        ev = json.loads(line)
        self.assertEqual(ev["type"], "MODIFIED")
        self.assertEqual(ev["object"]["metadata"]["name"], "web-1")
        self.assertEqual(ev["object"]["metadata"]["annotations"]["big"], big)


if __name__ == "__main__":
    unittest.main()
