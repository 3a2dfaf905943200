"""The longest names the apiserver takes, through every path.

A custom resource's group may be long: its CRD's name, plural.group, is
a DNS name of up to 253 bytes, so "widgets" leaves the group 245, and
its version is a DNS label of up to 63. The proxy once routed such a
path into 128 bytes (a GET answered 400), wrote the apiVersion through
160 bytes, made each object's kind/apiVersion prefix in 256 (copying
past the buffer's end) and named it in /metrics in 200.

Here the fake serves such a resource, and the proxy caches it: its
LIST, GET, Table and watch are the fake's, and /metrics names it whole
in lines Prometheus can read.
"""
import json
import re
import unittest

import harness as h

GROUP = ".".join(["g" * 63] * 3 + ["g" * 53])  # 245 bytes
VERSION = "v1" + "x" * 61  # 63 bytes: a DNS label
PLURAL = "widgets"
PATH = "/apis/%s/%s/%s" % (GROUP, VERSION, PLURAL)
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


class LongestNames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        assert len(PLURAL + "." + GROUP) == 253
        cls.fake = h.fake("--quiet", "--crd", "%s.%s/%s:Widget" % (PLURAL, GROUP, VERSION),
                          "--crd-column", "%s.%s=Size:integer:.spec.size" % (PLURAL, GROUP),
                          seed="%s.%s=3" % (PLURAL, GROUP))
        cls.proxy = h.proxy(cls.fake.url, "%s.%s.%s" % (PLURAL, VERSION, GROUP))
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def both(self, path, headers=None):
        out = []
        for base in (self.fake.url, self.proxy.url):
            s, _, body = h.request("GET", base + path, headers=headers)
            self.assertEqual(s, 200, body[:300])
            out.append(json.loads(body))
        return out

    def test_list_and_get_are_the_fakes(self):
        fake, proxy = self.both(PATH + "?resourceVersion=0")
        self.assertEqual(proxy["apiVersion"], GROUP + "/" + VERSION)
        self.assertEqual(len(proxy["items"]), 3)
        self.assertEqual(proxy, fake)
        name = proxy["items"][1]["metadata"]["name"]
        ns = proxy["items"][1]["metadata"]["namespace"]
        one = "/apis/%s/%s/namespaces/%s/%s/%s" % (GROUP, VERSION, ns, PLURAL, name)
        fake, proxy = self.both(one + "?resourceVersion=0")
        self.assertEqual(proxy["apiVersion"], GROUP + "/" + VERSION)
        self.assertEqual(proxy, fake)
        # and without resourceVersion (proven fresh, or forwarded)
        fake, proxy = self.both(one)
        self.assertEqual(proxy, fake)

    def test_table_is_the_fakes(self):
        fake, proxy = self.both(PATH + "?resourceVersion=0", headers={"Accept": TABLE})
        self.assertEqual([r["cells"] for r in proxy["rows"]],
                         [r["cells"] for r in fake["rows"]])
        self.assertEqual(proxy["columnDefinitions"], fake["columnDefinitions"])

    def test_watch_is_the_fakes(self):
        _, lst = h.get_json(self.fake.url + PATH)
        rv = lst["metadata"]["resourceVersion"]
        h.wait_until(lambda: int(h.get_json(self.proxy.url + PATH + "?resourceVersion=0")[1]
                                 ["metadata"]["resourceVersion"]) >= int(rv),
                     what="the proxy's cache")
        q = "?watch=1&resourceVersion=" + rv
        ws = [h.Watch(self.fake.url + PATH + q), h.Watch(self.proxy.url + PATH + q)]
        try:
            item = lst["items"][0]["metadata"]
            s, _, body = h.request(
                "PATCH", self.fake.url + "/apis/%s/%s/namespaces/%s/%s/%s" % (
                    GROUP, VERSION, item["namespace"], PLURAL, item["name"]),
                body=json.dumps({"spec": {"size": 42}}).encode(),
                headers={"Content-Type": "application/merge-patch+json"})
            self.assertEqual(s, 200, body[:300])
            fake_evs, proxy_evs = (w.wait_for(1) for w in ws)
            self.assertEqual(len(fake_evs), 1)
            self.assertEqual(proxy_evs, fake_evs)
            self.assertEqual(proxy_evs[0]["object"]["apiVersion"], GROUP + "/" + VERSION)
        finally:
            for w in ws:
                w.close()

    def test_metrics_name_it_whole(self):
        s, _, _ = h.request("GET", self.proxy.url + PATH + "?resourceVersion=0")
        self.assertEqual(s, 200)
        s, _, body = h.request("GET", self.proxy.url + "/metrics")
        self.assertEqual(s, 200)
        text = body.decode()
        # every sample line: a name, {k="v",...} whole, a value
        sample = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="[^"\\\n]*",?)*\})? \S+$')
        bad = [l for l in text.splitlines() if l and not l.startswith("#")
               and not sample.match(l)]
        self.assertEqual(bad, [])
        self.assertIn('informer_proxy_cache_objects{resource="%s.%s"} 3' % (PLURAL, GROUP), text)
        self.assertRegex(text, r'informer_proxy_request_duration_seconds_count\{verb="list",'
                         r'resource="%s\.%s",code="200"\} [1-9]' % (PLURAL, re.escape(GROUP)))


if __name__ == "__main__":
    unittest.main()
