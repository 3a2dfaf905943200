"""Watch edges as the apiserver's watch cache has them, the proxy against
the fake apiserver (which answers as a v1.32 apiserver): an object that
leaves a label or field selector is DELETED with the state that matched,
at the change's resourceVersion; the watch-list's initial-events-end
bookmark carries the list blueprint client-go's List() decodes; a
bookmark comes 2 s before a watch's deadline; a watch-list from an RV a
direct LIST returned is served although the cache of a quiet resource
has not reached it; sendInitialEvents without
resourceVersionMatch=NotOlderThan is the apiserver's 422, byte for byte.

The fake keeps the default one-minute bookmark interval, so the proxy's
cache of a resource stays at its last write while other resources move
the upstream's revision, as in a real cluster; the proxy's own are 2 s
apart."""
import base64
import json
import time
import threading
import unittest

import harness as h

PMO = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json"


class WatchEdges(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--crd", "widgets.example.com/v1:Widget",
                          seed="pods=12,configmaps=4,widgets.example.com=3")
        cls.proxy = h.proxy(cls.fake.url, "pods,configmaps,widgets.v1.example.com",
                            "--bookmark-interval", "2")
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def patch(self, path, labels, spec=None):
        body = {"metadata": {"labels": labels}}
        if spec:
            body["spec"] = spec
        s, _, raw = h.request("PATCH", self.fake.url + path, body=json.dumps(body).encode(),
                              headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(s, 200, raw)
        return json.loads(raw)["metadata"]["resourceVersion"]

    def both(self, query, path="/api/v1/pods"):
        """The same watch opened on the fake and on the proxy."""
        return (h.Watch(self.fake.url + path + "?" + query),
                h.Watch(self.proxy.url + path + "?" + query))

    def cached_rv(self, path="/api/v1/pods"):
        return int(h.get_json(self.proxy.url + path + "?resourceVersion=0")[1]
                   ["metadata"]["resourceVersion"])

    def test_leaving_and_entering_a_label_selector(self):
        self.patch("/api/v1/namespaces/ns-1/pods/web-1", {"edge": "in"})
        _, lst = h.get_json(self.fake.url + "/api/v1/pods?labelSelector=edge%3Din")
        rv = lst["metadata"]["resourceVersion"]
        h.wait_until(lambda: self.cached_rv() >= int(rv), what="the proxy's cache")
        query = "?watch=1&labelSelector=edge%3Din&resourceVersion=" + rv
        # several watches that the change takes out at once, on the
        # fan-out threads: the state they leave with is made once for all
        ws = [h.Watch(self.fake.url + "/api/v1/pods" + query)] + [
            h.Watch(self.proxy.url + "/api/v1/pods" + query) for _ in range(6)]
        try:
            out_rv = self.patch("/api/v1/namespaces/ns-1/pods/web-1", {"edge": "out"})
            in_rv = self.patch("/api/v1/namespaces/ns-1/pods/web-1", {"edge": "in"})
            fake_evs, *each = (w.wait_for(2) for w in ws)
            for proxy_evs in each:
                # the fake is the reference: the same events, object for object
                self.assertEqual(proxy_evs, fake_evs)
            self.assertEqual([e["type"] for e in fake_evs], ["DELETED", "ADDED"])
            gone = fake_evs[0]["object"]["metadata"]
            # the state that matched, at the RV of the change that left
            self.assertEqual((gone["labels"]["edge"], gone["resourceVersion"]), ("in", out_rv))
            self.assertEqual(fake_evs[1]["object"]["metadata"]["resourceVersion"], in_rv)
        finally:
            for w in ws:
                w.close()

    def test_leaving_and_entering_a_field_selector(self):
        path = "/api/v1/namespaces/ns-6/pods/web-6"
        rv = self.patch(path, {}, spec={"nodeName": "edge-a"})
        h.wait_until(lambda: self.cached_rv() >= int(rv), what="the proxy's cache")
        a = self.both("watch=1&fieldSelector=spec.nodeName%3Dedge-a&resourceVersion=" + rv)
        b = self.both("watch=1&fieldSelector=spec.nodeName%3Dedge-b&resourceVersion=" + rv)
        try:
            moved = self.patch(path, {}, spec={"nodeName": "edge-b"})
            for (fake_w, proxy_w), typ, node in ((a, "DELETED", "edge-a"), (b, "ADDED", "edge-b")):
                fake_evs, proxy_evs = fake_w.wait_for(1), proxy_w.wait_for(1)
                self.assertEqual(proxy_evs, fake_evs)
                self.assertEqual([e["type"] for e in proxy_evs], [typ])
                o = proxy_evs[0]["object"]
                self.assertEqual((o["spec"]["nodeName"], o["metadata"]["resourceVersion"]),
                                 (node, moved))
        finally:
            for w in a + b:
                w.close()

    def end_bookmark(self, base, path, headers=None):
        s, _, raw = h.request("GET", base + path + "?watch=1&sendInitialEvents=true"
                              "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
                              "&timeoutSeconds=1", headers=headers)
        self.assertEqual(s, 200, raw)
        evs = [json.loads(l) for l in raw.splitlines()]
        ends = [e for e in evs if e["type"] == "BOOKMARK" and
                e["object"]["metadata"].get("annotations", {}).get("k8s.io/initial-events-end")]
        self.assertEqual(len(ends), 1, raw[-600:])
        obj = ends[0]["object"]
        obj["metadata"].pop("resourceVersion")   # each server's own
        return obj

    def test_watchlist_end_bookmark_has_the_list_blueprint(self):
        for path, headers, want in (
                ("/api/v1/namespaces/ns-2/pods", None,
                 {"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": None}),
                ("/apis/example.com/v1/widgets", None,
                 {"apiVersion": "example.com/v1", "items": [], "kind": "WidgetList"}),
                ("/api/v1/namespaces/ns-2/pods", {"Accept": PMO},
                 {"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
                  "metadata": {}, "items": None})):
            # the whole object as the fake's: an empty one of the kind (a
            # typed kind's zero values, none for a custom resource)
            obj = self.end_bookmark(self.proxy.url, path, headers)
            self.assertEqual(obj, self.end_bookmark(self.fake.url, path, headers), path)
            got = obj["metadata"]["annotations"]
            blueprint = base64.b64decode(got["kubernetes.io/initial-events-list-blueprint"])
            self.assertTrue(blueprint.endswith(b"}\n"), blueprint)
            self.assertEqual(json.loads(blueprint), want, path)

    def test_bookmark_before_the_deadline(self):
        rv = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-3/pods?resourceVersion=0")[1][
            "metadata"]["resourceVersion"]
        # The fake's bookmarks are a minute apart: its 5 s watch gets only
        # the one 2 s before the deadline, once the RV passed its start (a
        # change in another namespace moves it). The proxy's are 2 s
        # apart: an 8 s watch gets them at 2 and 4 s and before the
        # deadline, the same RV again each time, as the cacher sends them.
        fake_w = h.Watch(self.fake.url + "/api/v1/namespaces/ns-3/pods?watch=1"
                         "&allowWatchBookmarks=true&timeoutSeconds=5&resourceVersion=" + rv)
        proxy_w = h.Watch(self.proxy.url + "/api/v1/namespaces/ns-3/pods?watch=1"
                          "&allowWatchBookmarks=true&timeoutSeconds=8&resourceVersion=" + rv)
        try:
            moved = self.patch("/api/v1/namespaces/ns-4/pods/web-4", {"edge": "deadline"})
            self.assertTrue(fake_w.wait_closed(20))
            self.assertEqual([e["type"] for e in fake_w.events], ["BOOKMARK"])
            self.assertGreaterEqual(int(fake_w.events[0]["object"]["metadata"]["resourceVersion"]),
                                    int(moved))
            self.assertTrue(proxy_w.wait_closed(30))
            types = [e["type"] for e in proxy_w.events]
            self.assertGreaterEqual(len(types), 2, types)
            self.assertEqual(set(types), {"BOOKMARK"})
            rvs = {e["object"]["metadata"]["resourceVersion"] for e in proxy_w.events}
            self.assertEqual(len(rvs), 1, rvs)
            # an empty Pod but its RV, as the fake's
            for w in (fake_w, proxy_w):
                w.events[0]["object"]["metadata"].pop("resourceVersion")
            self.assertEqual(proxy_w.events[0], fake_w.events[0])
            self.assertEqual(proxy_w.events[0]["object"]["spec"], {"containers": None})
        finally:
            fake_w.close()
            proxy_w.close()

    def test_watchlist_from_a_listed_rv_of_a_quiet_resource(self):
        # a write to another resource moves the upstream's revision; the
        # pods cache stays at the last pod write for its next bookmark
        _, cms = h.get_json(self.fake.url + "/api/v1/configmaps")
        cm = cms["items"][0]["metadata"]
        for i in range(3):   # unless the pods' minute bookmark came between
            self.patch("/api/v1/namespaces/%s/configmaps/%s" % (cm["namespace"], cm["name"]),
                       {"edge": "quiet-%d" % i})
            _, lst = h.get_json(self.fake.url + "/api/v1/namespaces/ns-5/pods")
            rv = int(lst["metadata"]["resourceVersion"])
            if self.cached_rv() < rv:
                break
        self.assertLess(self.cached_rv(), rv)
        w = h.Watch(self.proxy.url + "/api/v1/namespaces/ns-5/pods?watch=1&sendInitialEvents=true"
                    "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
                    "&timeoutSeconds=10&resourceVersion=%d" % rv)
        try:
            evs = w.wait_for(len(lst["items"]) + 1)
            self.assertEqual(w.status, 200)
            self.assertEqual([e["type"] for e in evs],
                             ["ADDED"] * len(lst["items"]) + ["BOOKMARK"], evs[-1:])
            self.assertEqual(sorted(e["object"]["metadata"]["name"] for e in evs[:-1]),
                             sorted(o["metadata"]["name"] for o in lst["items"]))
            self.assertGreaterEqual(int(evs[-1]["object"]["metadata"]["resourceVersion"]), rv)
        finally:
            w.close()

    def test_sendinitialevents_needs_notolderthan(self):
        for q in ("sendInitialEvents=true", "sendInitialEvents=false",
                  "sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=5",
                  "resourceVersionMatch=NotOlderThan",
                  "resourceVersionMatch=Bogus&resourceVersion=0"):
            path = "/api/v1/namespaces/ns-1/pods?watch=1&" + q
            results = []
            for base in (self.fake.url, self.proxy.url):
                out = {}
                t = threading.Thread(target=lambda b=base, o=out: o.update(
                    r=h.request("GET", b + path, timeout=10)))
                t.start()
                t.join(15)
                self.assertIn("r", out, (base, q))   # an answer, not a stream
                s, hd, raw = out["r"]
                results.append((s, hd.get("Content-Type"), raw))
            self.assertEqual(results[0][0], 422, (q, results[0]))
            self.assertEqual(results[1], results[0], q)
            self.assertEqual(json.loads(results[1][2])["details"]["kind"], "ListOptions")

    def test_metadata_watchers_share_one_line(self):
        """Metadata-only watchers on the proxy's fan-out threads: each
        event's PartialObjectMetadata line is made once and copied to all
        of them, so their streams are the same bytes; and those events
        are the fake's, event for event."""
        from concurrent.futures import ThreadPoolExecutor
        rv = self.cached_rv()
        query = "/api/v1/namespaces/ns-2/pods?watch=1&timeoutSeconds=2&resourceVersion=%d" % rv
        with ThreadPoolExecutor(8) as pool:
            proxied = [pool.submit(h.request, "GET", self.proxy.url + query,
                                   headers={"Accept": PMO}, timeout=20) for _ in range(6)]
            direct = pool.submit(h.request, "GET", self.fake.url + query,
                                 headers={"Accept": PMO}, timeout=20)
            time.sleep(0.5)
            names = [i["metadata"]["name"] for i in h.get_json(
                self.proxy.url + "/api/v1/namespaces/ns-2/pods?resourceVersion=0")[1]["items"]]
            patched = (names * 3)[:6]
            for n, name in enumerate(patched):
                self.patch("/api/v1/namespaces/ns-2/pods/" + name, {"shared": str(n)})
            bodies = [f.result()[2] for f in proxied]
            want = direct.result()[2]
        self.assertEqual(len(set(bodies)), 1)
        got = [json.loads(l) for l in bodies[0].splitlines()]
        self.assertEqual(len(got), len(patched), bodies[0])
        self.assertTrue(all(e["object"]["kind"] == "PartialObjectMetadata" for e in got))
        self.assertEqual(got, [json.loads(l) for l in want.splitlines()])


if __name__ == "__main__":
    unittest.main()
