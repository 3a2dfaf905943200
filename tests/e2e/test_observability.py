"""/metrics as a dashboard needs it: `promtool check metrics` accepts the
page, and the histograms are there and move with what happens: request
durations by verb, resource and code; upstream request durations by verb
and code; event delivery lag; how far watches are behind, with the
maximum; slow watchers ended with 410.
"""
import json
import os
import re
import socket
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import harness as h  # noqa: E402


def scrape(proxy):
    s, hdrs, body = h.request("GET", proxy.url + "/metrics")
    assert s == 200
    return body.decode()


def samples(text):
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


def pod(name, pad=0):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "annotations": {"pad": "x" * pad}},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


class Metrics(unittest.TestCase):
    def setUp(self):
        self.fake, self.proxy = h.fake_and_proxy(self, "pods", "--history", "64", seed="pods=20")

    def create(self, name, pad=0):
        s, _, _ = h.request("POST", self.fake.url + "/api/v1/namespaces/default/pods", body=pod(name, pad))
        self.assertEqual(s, 201)

    def test_promtool_accepts_the_page(self):
        # something in every family first, errors and passthrough included
        h.request("GET", self.proxy.url + "/api/v1/pods")
        h.request("GET", self.proxy.url + "/api/v1/namespaces/ns-0/pods/nope")
        h.request("GET", self.proxy.url + "/api/v1/services")
        h.request("GET", self.proxy.url + "/api/v1/pods?watch=1&timeoutSeconds=1")
        text = scrape(self.proxy)
        p = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                           text=True, timeout=60)
        self.assertEqual((p.returncode, p.stdout + p.stderr), (0, ""))
        # and it does fail on a page that breaks the conventions
        p = subprocess.run(["promtool", "check", "metrics"], input="# TYPE x_seconds counter\nx_seconds 1\n",
                           capture_output=True, text=True, timeout=60)
        self.assertNotEqual(p.stdout + p.stderr, "")

    def settled(self, want):
        """The samples once every key of want has its value: a request is
        counted when it ends, just after its client has the answer."""
        def ok():
            m = samples(scrape(self.proxy))
            return m if all(m.get(k, 0) == v for k, v in want.items()) else None
        return h.wait_until(ok, what=str(want))

    def test_request_histogram_moves(self):
        key = 'informer_proxy_request_duration_seconds_count{verb="list",resource="pods",code="200"}'
        before = samples(scrape(self.proxy)).get(key, 0)
        for _ in range(3):
            s, _, _ = h.request("GET", self.proxy.url + "/api/v1/pods?resourceVersion=0")
            self.assertEqual(s, 200)
        m = self.settled({key: before + 3})
        inf = 'informer_proxy_request_duration_seconds_bucket{verb="list",resource="pods",code="200",le="+Inf"}'
        self.assertEqual(m[inf], m[key])
        self.assertGreater(m['informer_proxy_request_duration_seconds_sum{verb="list",resource="pods",code="200"}'], 0)
        # errors and what is passed through have their own series
        h.request("GET", self.proxy.url + "/api/v1/namespaces/ns-0/pods/nope?resourceVersion=0")
        s, _, _ = h.request("GET", self.proxy.url + "/api/v1/namespaces/default/services")
        # a target refused before routing is counted too, as no resource
        s400, _, _ = h.request("GET", self.proxy.url + "/api/v1/pods%00")
        self.assertEqual(s400, 400)
        up = 'informer_proxy_upstream_request_duration_seconds_count{verb="list",code="%d"}' % s
        m = self.settled({
            'informer_proxy_request_duration_seconds_count{verb="get",resource="pods",code="404"}': 1,
            'informer_proxy_request_duration_seconds_count{verb="list",resource="other",code="%d"}' % s: 1,
            'informer_proxy_request_duration_seconds_count{verb="get",resource="none",code="400"}': 1,
        })
        h.wait_until(lambda: samples(scrape(self.proxy)).get(up, 0) >= 1, what="an upstream LIST counted")
        before = samples(scrape(self.proxy))[up]
        h.request("GET", self.proxy.url + "/api/v1/namespaces/default/services")
        # at least this one (the proxy's own probes share the series)
        h.wait_until(lambda: samples(scrape(self.proxy))[up] >= before + 1, what="the LIST counted")

    def test_delivery_lag_moves(self):
        key = 'informer_proxy_event_delivery_seconds_count{resource="pods"}'
        w = h.Watch(self.proxy.url + "/api/v1/pods?watch=1&resourceVersion=0&allowWatchBookmarks=false")
        try:
            w.wait_for(20)  # the initial state is not counted: it did not arrive as an event
            before = samples(scrape(self.proxy))[key]
            for i in range(5):
                self.create("lag-%d" % i)
            w.wait_for(25)
            h.wait_until(lambda: samples(scrape(self.proxy))[key] >= before + 5, what="5 deliveries")
        finally:
            w.close()
        m = samples(scrape(self.proxy))
        self.assertGreater(m['informer_proxy_event_delivery_seconds_sum{resource="pods"}'], 0)
        self.assertGreaterEqual(m['informer_proxy_watcher_lag_events_count{resource="pods"}'], 1)
        self.assertGreaterEqual(m['informer_proxy_upstream_events_total{resource="pods"}'], 5)

    def test_stalled_watch_lags_then_expires(self):
        port = int(self.proxy.url.rsplit(":", 1)[1])
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", port))
        self.addCleanup(s.close)
        s.sendall(b"GET /api/v1/pods?watch=1&resourceVersion=0 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        # never read: writes pile up behind it, far past --history 64
        # (10 MiB of events: more than the kernel's socket buffers hold)
        for i in range(640):
            self.create("big-%03d" % i, pad=16384)
        m = h.wait_until(lambda: (lambda m: m if m['informer_proxy_watcher_lag_events_max{resource="pods"}'] > 64
                                  else None)(samples(scrape(self.proxy))), what="a watch 64 events behind")
        self.assertEqual(m["informer_proxy_slow_watchers_expired_total"], 0)
        # reading again, it finds its place gone: 410, and it is counted
        s.settimeout(30)
        got = b""
        while b"too old resource version" not in got:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            got += chunk
        self.assertIn(b'"reason":"Expired","code":410', got)
        h.wait_until(lambda: samples(scrape(self.proxy))["informer_proxy_slow_watchers_expired_total"] == 1,
                     what="the slow watcher counted")
        h.wait_until(lambda: samples(scrape(self.proxy))['informer_proxy_watcher_lag_events_max{resource="pods"}'] == 0,
                     what="no watch left behind")


class Dashboard(unittest.TestCase):
    """Every metric the chart's Grafana dashboard queries is one the proxy
    exports: a renamed metric cannot leave a panel silently empty."""

    def test_docs_list_every_family(self):
        """docs/OBSERVABILITY.md names every family on the page, and no
        family the page does not have (a renamed one included)."""
        with open(os.path.join(h.ROOT, "docs", "OBSERVABILITY.md")) as f:
            doc = f.read()
        documented = set(re.findall(r"`((?:informer_proxy|process)_[a-z_]+)", doc))
        fake, proxy = h.fake_and_proxy(self, "pods", seed="pods=3")
        text = scrape(proxy)
        exported = set(re.findall(r"^# TYPE (\S+) ", text, re.M))
        self.assertGreater(len(exported), 40)
        self.assertEqual((sorted(exported - documented), sorted(documented - exported)), ([], []))

    def test_dashboard_queries_real_metrics(self):
        with open(os.path.join(h.ROOT, "charts", "informer-proxy", "dashboards",
                               "informer-proxy.json")) as f:
            dash = json.load(f)
        exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
        used = set(re.findall(r"\b((?:informer_proxy|process)_[a-z_]+)", " ".join(exprs)))
        self.assertGreater(len(used), 10)
        fake, proxy = h.fake_and_proxy(self, "pods", seed="pods=3")
        h.request("GET", proxy.url + "/api/v1/pods")  # a request series
        h.request("GET", proxy.url + "/api/v1/services")  # an upstream one
        text = scrape(proxy)
        exported = set(re.findall(r"^([a-z_]+)[{ ]", text, re.M))
        self.assertEqual(sorted(used - exported), [])


if __name__ == "__main__":
    unittest.main()
