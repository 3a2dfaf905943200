"""--metrics-listen: a second port with /metrics and the probes only.

A Prometheus-style scrape of it succeeds and `promtool check metrics`
accepts the page; the API is not there (404 Status, nothing reaches the
upstream, whatever credentials come with the request); the probes and
their one-check forms answer on it as on the API port; it may listen on
a non-loopback address with no opt-in, because it lends no identity; a
bad value is refused at startup. Also the one-check probe forms on the
API port, which used to be passed upstream.
"""
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import harness as h  # noqa: E402


class MetricsListen(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", seed="pods=5")
        cls.proxy = h.proxy(cls.fake.url, "pods,configmaps", "--metrics-listen", "127.0.0.1:0")
        h.wait_ready(cls.proxy.url)
        cls.murl = cls.proxy.metrics_url()

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def stats(self):
        return h.get_json(self.fake.url + "/fake/stats")[1]["resources"]

    def test_a_separate_port(self):
        self.assertNotEqual(self.murl, self.proxy.url)
        self.assertTrue(self.murl.startswith("http://127.0.0.1:"), self.murl)

    def test_scrape_parses(self):
        s, hdrs, body = h.request("GET", self.murl + "/metrics",
                                  headers={"Accept": "text/plain;version=0.0.4;q=0.3,*/*;q=0.1"})
        self.assertEqual(s, 200)
        self.assertTrue(hdrs["Content-Type"].startswith("text/plain; version=0.0.4"))
        text = body.decode()
        self.assertIn('informer_proxy_cache_objects{resource="pods"} 5\n', text)
        p = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                           text=True, timeout=60)
        self.assertEqual((p.returncode, p.stdout + p.stderr), (0, ""))

    def test_no_api(self):
        before = self.stats()
        for path in ("/api/v1/pods", "/api/v1/configmaps", "/api/v1/namespaces/default/pods/p",
                     "/api", "/apis", "/version", "/openapi/v2", "/", "/metricsx",
                     "/readyz/", "/api/v1/pods?watch=1"):
            s, hdrs, body = h.request("GET", self.murl + path,
                                      headers={"Authorization": "Bearer some-token"})
            self.assertEqual(s, 404, path)
            st = json.loads(body)
            self.assertEqual((st["kind"], st["status"], st["reason"], st["code"]),
                             ("Status", "Failure", "NotFound", 404), path)
        s, _, body = h.request("POST", self.murl + "/api/v1/namespaces/default/configmaps",
                               body={"metadata": {"name": "x"}})
        self.assertEqual(s, 404)
        s, _, body = h.request("POST", self.murl + "/metrics", body={})
        self.assertEqual(s, 405)
        self.assertEqual(json.loads(body)["reason"], "MethodNotAllowed")
        after = self.stats()
        for res in ("pods", "configmaps"):
            self.assertEqual((after[res]["list"], after[res]["watch"]),
                             (before[res]["list"], before[res]["watch"]), res)
        # the same paths on the API port do reach the upstream
        self.assertEqual(h.request("GET", self.proxy.url + "/api/v1/configmaps")[0], 200)
        self.assertEqual(self.stats()["configmaps"]["list"], after["configmaps"]["list"] + 1)

    def test_health_on_both_ports(self):
        for base in (self.murl, self.proxy.url):
            for path in ("/healthz", "/livez", "/readyz", "/livez/ping", "/healthz/ping",
                         "/readyz/ping", "/readyz/shutdown", "/readyz/informer-sync-pods",
                         "/readyz/upstream-configmaps", "/readyz/upstream"):
                s, hdrs, body = h.request("GET", base + path)
                self.assertEqual((s, body), (200, b"ok"), base + path)
            s, _, body = h.request("GET", base + "/readyz?verbose")
            self.assertEqual(s, 200)
            text = body.decode()
            self.assertIn("[+]informer-sync-pods ok\n[+]informer-sync-configmaps ok\n", text)
            self.assertTrue(text.endswith("readyz check passed"), text)
            s, _, body = h.request("GET", base + "/readyz?verbose&exclude=informer-sync-pods")
            self.assertEqual(s, 200)
            self.assertIn("[+]informer-sync-pods excluded: ok\n", body.decode())
            for path in ("/readyz/nosuch", "/livez/informer-sync-pods"):
                s, _, body = h.request("GET", base + path)
                self.assertEqual(s, 404, base + path)
                self.assertEqual(json.loads(body)["reason"], "NotFound")


class Startup(unittest.TestCase):
    def test_non_loopback_needs_no_opt_in(self):
        fake = h.fake("--quiet", seed="pods=1")
        self.addCleanup(fake.stop)
        proxy = h.proxy(fake.url, "pods", "--metrics-listen", "0.0.0.0:0")
        self.addCleanup(proxy.stop)
        url = proxy.metrics_url()
        self.assertTrue(url.startswith("http://0.0.0.0:"), url)
        port = url.rsplit(":", 1)[1]
        h.wait_until(lambda: h.request("GET", "http://127.0.0.1:%s/readyz" % port)[0] == 200,
                     timeout=30, what="ready on the metrics port")

    def test_off_by_default(self):
        fake = h.fake("--quiet", seed="pods=1")
        self.addCleanup(fake.stop)
        proxy = h.proxy(fake.url, "pods")
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        self.assertNotIn("metrics and probes", proxy.logs())

    def test_bad_value_refused(self):
        for v in ("9090", "127.0.0.1:", "127.0.0.1:70000", "not an address:9090"):
            r = subprocess.run([os.path.join(h.BIN, "informer-proxy"), "--resources", "pods",
                                "--server", "http://127.0.0.1:9", "--listen", "127.0.0.1:0",
                                "--metrics-listen", v],
                               capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
            self.assertNotEqual(r.returncode, 0, v)
            self.assertIn("--metrics-listen", r.stdout + r.stderr, v)


if __name__ == "__main__":
    unittest.main()
