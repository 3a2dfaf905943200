"""Passthrough: what the cache does not serve reaches the upstream with
status, headers and body intact, watches of uncached resources stream,
and writes are never answered from the cache."""
import json
import time
import unittest

import harness as h


class Passthrough(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake(seed="pods=30,configmaps=10")
        cls.proxy = h.proxy(cls.fake.url, "pods")
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def stats(self):
        return h.get_json(self.fake.url + "/fake/stats")[1]["resources"]

    def test_uncached_list_and_get_equal_upstream(self):
        for path in ("/api/v1/namespaces/ns-1/configmaps", "/api/v1/configmaps",
                     "/api/v1/namespaces/ns-1/configmaps/cm-1",
                     "/api/v1/namespaces/ns-1/configmaps/nope", "/api/v1/bogus"):
            a = h.request("GET", self.fake.url + path)
            b = h.request("GET", self.proxy.url + path)
            self.assertEqual(a[0], b[0], path)
            self.assertEqual(a[2], b[2], path)
            self.assertEqual(a[1].get("Content-Type"), b[1].get("Content-Type"))

    def test_uncached_list_goes_upstream_every_time(self):
        before = self.stats()["configmaps"]["list"]
        for _ in range(3):
            self.assertEqual(h.request("GET", self.proxy.url + "/api/v1/configmaps")[0], 200)
        self.assertEqual(self.stats()["configmaps"]["list"], before + 3)

    def test_writes_reach_upstream_and_show_in_cache(self):
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pt-pod"},
                "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
        s, hdrs, raw = h.request("POST", self.proxy.url + "/api/v1/namespaces/ns-2/pods", body=body)
        self.assertEqual(s, 201, raw)
        created = json.loads(raw)
        rv = created["metadata"]["resourceVersion"]
        # the fake has it; the cache gets it through its watch
        s, fo = h.get_json(self.fake.url + "/api/v1/namespaces/ns-2/pods/pt-pod")
        self.assertEqual(s, 200)
        h.wait_until(lambda: h.get_json(self.proxy.url + "/api/v1/namespaces/ns-2/pods/pt-pod")[0] == 200,
                     what="the created pod in the cache")
        s, po = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-2/pods/pt-pod")
        self.assertEqual(po["metadata"]["resourceVersion"], rv)
        # a conflicting update: the upstream's 409 comes back unchanged
        stale = dict(created)
        stale["metadata"] = dict(created["metadata"], resourceVersion="1")
        s, _, raw = h.request("PUT", self.proxy.url + "/api/v1/namespaces/ns-2/pods/pt-pod", body=stale)
        st = json.loads(raw)
        self.assertEqual((s, st["kind"], st["reason"]), (409, "Status", "Conflict"))
        s, _, raw = h.request("PATCH", self.proxy.url + "/api/v1/namespaces/ns-2/pods/pt-pod",
                              body=b'{"metadata":{"labels":{"via":"proxy"}}}',
                              headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(s, 200, raw)
        self.assertEqual(json.loads(raw)["metadata"]["labels"]["via"], "proxy")
        s, _, _ = h.request("DELETE", self.proxy.url + "/api/v1/namespaces/ns-2/pods/pt-pod")
        self.assertEqual(s, 200)
        h.wait_until(lambda: h.get_json(self.proxy.url + "/api/v1/namespaces/ns-2/pods/pt-pod")[0] == 404,
                     what="the deleted pod gone from the cache")
        s, _ = h.get_json(self.fake.url + "/api/v1/namespaces/ns-2/pods/pt-pod")
        self.assertEqual(s, 404)

    def test_uncached_watch_streams(self):
        w = h.Watch(self.proxy.url + "/api/v1/namespaces/ns-3/configmaps?watch=true&resourceVersion=0")
        try:
            self.assertEqual(w.status, 200)
            first = w.wait_for(1)
            self.assertTrue(first and first[0]["type"] == "ADDED")
            n = len(w.wait_for(100, timeout=1))
            s, _, _ = h.request("POST", self.fake.url + "/api/v1/namespaces/ns-3/configmaps",
                                body={"metadata": {"name": "streamed"}, "data": {"k": "v"}})
            self.assertEqual(s, 201)
            evs = w.wait_for(n + 1, timeout=10)
            self.assertEqual(evs[-1]["type"], "ADDED")
            self.assertEqual(evs[-1]["object"]["metadata"]["name"], "streamed")
            self.assertEqual(self.stats()["configmaps"]["watchOpen"], 1)
        finally:
            w.close()
        h.wait_until(lambda: self.stats()["configmaps"]["watchOpen"] == 0,
                     what="the upstream watch closed after its client left")

    def test_large_body_streams_whole(self):
        big = {"metadata": {"name": "big"}, "data": {"k": "x" * 900000}}
        s, _, _ = h.request("POST", self.proxy.url + "/api/v1/namespaces/ns-4/configmaps", body=big)
        self.assertEqual(s, 201)
        s, _, raw = h.request("GET", self.proxy.url + "/api/v1/namespaces/ns-4/configmaps/big")
        self.assertEqual(s, 200)
        self.assertEqual(json.loads(raw)["data"]["k"], "x" * 900000)

    def test_upstream_down_is_503_status(self):
        proxy = h.proxy("http://127.0.0.1:9", "pods")
        try:
            s, _, raw = h.request("GET", proxy.url + "/api/v1/configmaps")
            st = json.loads(raw)
            self.assertEqual((s, st["kind"], st["reason"]), (503, "Status", "ServiceUnavailable"))
        finally:
            proxy.stop()


if __name__ == "__main__":
    unittest.main()
