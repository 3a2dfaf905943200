"""A new --config without a restart (proxy/reload.h): on SIGHUP, and on a
changed file with --watch-config. An unchanged resource keeps its cache
and its watches (their streams stay open and go on delivering, and the
upstream sees no new LIST or WATCH for it); a removed one ends its local
watches with a clean close and is passed through after; an added one is
synced and served from the cache. A configuration that does not validate
is refused and the running one stays.
"""
import os
import signal
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import harness as h  # noqa: E402

BEFORE = """resources:
  - resource: configmaps
  - resource: pods
    namespaces: [ns-0]
"""
AFTER = """resources:
  - resource: configmaps
  - resource: services
"""


def stats(fake):
    return h.get_json(fake.url + "/fake/stats")[1]["resources"]


def metric(proxy, series):
    """The value of series ("name{labels}" exactly) on /metrics, or None."""
    for line in h.request("GET", proxy.url + "/metrics")[2].decode().splitlines():
        if line.startswith(series + " "):
            return float(line.rsplit(" ", 1)[1])
    return None


OK = 'informer_proxy_config_reloads_total{result="success"}'
FAILED = 'informer_proxy_config_reloads_total{result="failure"}'
LAST_OK = "informer_proxy_config_last_reload_success_timestamp_seconds"


def cm(name):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "b"}}


class Reload(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="reload-")
        self.path = os.path.join(self.dir, "config.yaml")
        self.write(BEFORE)
        self.fake = h.fake("--quiet", seed="pods=10,configmaps=5,services=3")
        self.addCleanup(self.fake.stop)

    def write(self, text):
        tmp = self.path + ".new"
        with open(tmp, "w") as f:
            f.write(text)
        os.rename(tmp, self.path)

    def start(self, *extra):
        p = h.Server("informer-proxy", [os.path.join(h.BIN, "informer-proxy"), "--listen", "127.0.0.1:0",
                                        "--server", self.fake.url, "--config", self.path, *extra])
        self.addCleanup(p.stop)
        h.wait_ready(p.url)
        return p

    def reloaded(self, proxy, n):
        h.wait_until(lambda: proxy.logs().count("reload: ") + proxy.logs().count("reload refused") >= n,
                     what="reload %d" % n)

    def test_sighup(self):
        proxy = self.start()
        cms = h.Watch(proxy.url + "/api/v1/configmaps?watch=1&resourceVersion=0")
        pods = h.Watch(proxy.url + "/api/v1/namespaces/ns-0/pods?watch=1&resourceVersion=0")
        self.addCleanup(cms.close)
        self.addCleanup(pods.close)
        cms.wait_for(5)
        pods.wait_for(1)
        before = stats(self.fake)

        self.assertEqual((metric(proxy, OK), metric(proxy, FAILED)), (0, 0))
        self.write(AFTER)
        signalled = int(time.time())
        proxy.proc.send_signal(signal.SIGHUP)
        h.wait_until(lambda: "reload: 1 resource entry added, 1 removed" in proxy.logs(),
                     what="the reload")
        h.wait_until(lambda: metric(proxy, OK) == 1, what="the reload counted")
        self.assertEqual(metric(proxy, FAILED), 0)
        self.assertGreaterEqual(metric(proxy, LAST_OK), signalled)
        # the removed resource's watch ends cleanly: no ERROR event
        pods.wait_closed(20)
        self.assertTrue(pods.closed)
        self.assertFalse(hasattr(pods, "error"))
        self.assertEqual([e for e in pods.events if e["type"] == "ERROR"], [])
        # the added one is synced and served from the cache
        h.wait_until(lambda: h.request("GET", proxy.url + "/readyz")[0] == 200, what="ready")
        n = stats(self.fake)["services"]["list"]
        s, body = h.get_json(proxy.url + "/api/v1/services?resourceVersion=0")
        self.assertEqual(s, 200)
        self.assertEqual(stats(self.fake)["services"]["list"], n)
        # the unchanged one: the same upstream watch, the same local stream
        s, _, _ = h.request("POST", self.fake.url + "/api/v1/namespaces/default/configmaps", body=cm("after"))
        self.assertEqual(s, 201)
        got = cms.wait_for(6)
        self.assertEqual(got[-1]["object"]["metadata"]["name"], "after")
        self.assertFalse(cms.closed)
        now = stats(self.fake)
        self.assertEqual(now["configmaps"]["list"], before["configmaps"]["list"])
        self.assertEqual(now["configmaps"]["watch"], before["configmaps"]["watch"])
        # and pods are no longer the cache's: passed through
        n = now["pods"]["list"]
        s, body = h.get_json(proxy.url + "/api/v1/namespaces/ns-0/pods?resourceVersion=0")
        self.assertEqual(s, 200)
        self.assertEqual(stats(self.fake)["pods"]["list"], n + 1)
        m = h.request("GET", proxy.url + "/metrics")[2].decode()
        self.assertIn('informer_proxy_cache_synced{resource="services"} 1', m)
        self.assertNotIn('resource="pods"', m.split("informer_proxy_cache_objects", 1)[1].split("# HELP")[0])

    def test_invalid_config_is_refused(self):
        proxy = self.start()
        self.write("resources:\n  - resource: configmaps\n    colour: blue\n")
        proxy.proc.send_signal(signal.SIGHUP)
        h.wait_until(lambda: "reload refused" in proxy.logs(), what="the refusal")
        self.assertIn(self.path + ":3:5: resources: unknown key \"colour\"", proxy.logs())
        # a resource the upstream does not serve is refused as well
        self.write("resources:\n  - resource: configmaps\n  - resource: gizmos.example.com\n")
        proxy.proc.send_signal(signal.SIGHUP)
        h.wait_until(lambda: proxy.logs().count("reload refused") == 2, what="the second refusal")
        # named with its place in the file
        self.assertIn(self.path + ":3:5: gizmos.example.com: ", proxy.logs())
        # and two spellings of one resource, with both places
        self.write("resources:\n  - resource: configmaps\n  - resource: cm\n")
        proxy.proc.send_signal(signal.SIGHUP)
        h.wait_until(lambda: proxy.logs().count("reload refused") == 3, what="the third refusal")
        self.assertIn('%s:3:5: "cm" named twice: the same resource as "configmaps" at %s:2:5'
                      % (self.path, self.path), proxy.logs())
        h.wait_until(lambda: metric(proxy, FAILED) == 3, what="the refusals counted")
        self.assertEqual(metric(proxy, OK), 0)
        # the configuration in force is still the one loaded at the start
        self.assertLessEqual(abs(metric(proxy, LAST_OK) - metric(proxy, "process_start_time_seconds")), 2)
        # the old configuration stays: pods of ns-0 from the cache
        n = stats(self.fake)["pods"]["list"]
        s, body = h.get_json(proxy.url + "/api/v1/namespaces/ns-0/pods?resourceVersion=0")
        self.assertEqual(s, 200)
        self.assertTrue(body["items"])
        self.assertEqual(stats(self.fake)["pods"]["list"], n)
        self.assertEqual(h.request("GET", proxy.url + "/readyz")[0], 200)

    def test_settings_other_than_resources_wait_for_a_restart(self):
        """A reload applies the resources only; any other setting the file
        changed is named in a warning, so an operator who edited page-size
        is not left believing it took effect."""
        proxy = self.start()
        self.write(BEFORE)  # the same file again: nothing to say
        proxy.proc.send_signal(signal.SIGHUP)
        self.reloaded(proxy, 1)
        self.assertNotIn("wait for a restart", proxy.logs())
        self.write(BEFORE + "page-size: 7\nhistory: 500\nlog-format: json\n")
        proxy.proc.send_signal(signal.SIGHUP)
        h.wait_until(lambda: "wait for a restart" in proxy.logs(), what="the warning")
        self.assertIn("changed settings that wait for a restart: "
                      "log-format, page-size, history", proxy.logs())
        # the log is still text: the setting did wait
        self.assertFalse(proxy.logs().rstrip().splitlines()[-1].startswith("{"))

    def test_watch_config(self):
        proxy = self.start("--watch-config")
        time.sleep(1.1)  # a new mtime, whatever the file system's granularity
        self.write(AFTER)
        h.wait_until(lambda: "changed: reloading" in proxy.logs() and
                     "reload: 1 resource entry added" in proxy.logs(), timeout=20,
                     what="the reload on change")
        h.wait_until(lambda: h.get_json(proxy.url + "/api/v1/services?resourceVersion=0")[0] == 200
                     and h.request("GET", proxy.url + "/readyz")[0] == 200, what="services served")


if __name__ == "__main__":
    unittest.main()
