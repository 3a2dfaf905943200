"""The apiserver's read semantics against the proxy (watch spellings,
timeoutSeconds, WatchList, bookmarks, selectors, 410, Table, gzip,
pretty-printing, protobuf, discovery), and a differential test: one list of requests sent to the fake apiserver and to the proxy,
compared on status, reason, items and resourceVersions."""
import gzip
import json
import time
import unittest
import urllib.parse

import harness as h

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
PMO = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json"
AGG = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


def key(o):
    m = o["metadata"]
    return (m.get("namespace", ""), m["name"], m["resourceVersion"])


class Protocol(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--bookmark-interval", "1", "--crd", "widgets.example.com/v1:Widget",
                          seed="pods=60,configmaps=20,widgets.example.com=5")
        cls.proxy = h.proxy(cls.fake.url, "pods,configmaps,widgets.v1.example.com",
                            "--bookmark-interval", "1", "--history", "40")
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def faults(self, body):
        s, _, raw = h.request("POST", self.fake.url + "/fake/faults", body=json.dumps(body).encode(),
                              headers={"Content-Type": "application/json"})
        self.assertEqual(s, 200, raw)

    def patch(self, ns, name, labels):
        s, _, raw = h.request("PATCH", "%s/api/v1/namespaces/%s/pods/%s" % (self.fake.url, ns, name),
                              body=json.dumps({"metadata": {"labels": labels}}).encode(),
                              headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(s, 200, raw)
        return json.loads(raw)["metadata"]["resourceVersion"]

    # ---- differential ----

    def both(self, path, headers=None):
        a = h.request("GET", self.fake.url + path, headers=headers)
        b = h.request("GET", self.proxy.url + path, headers=headers)
        return a, b

    def test_differential(self):
        paths = [
            "/api/v1/pods", "/api/v1/namespaces/ns-1/pods", "/api/v1/configmaps",
            "/api/v1/pods?labelSelector=shard%3D7", "/api/v1/pods?labelSelector=shard+in+%281%2C2%29",
            "/api/v1/pods?labelSelector=shard%2Cshard%21%3D3", "/api/v1/pods?labelSelector=%21nope",
            "/api/v1/pods?fieldSelector=status.phase%3DPending",
            "/api/v1/pods?fieldSelector=spec.nodeName%3D",
            "/api/v1/namespaces/ns-2/pods?fieldSelector=metadata.name%3Dweb-2",
            "/api/v1/pods?labelSelector=app%3D%3D%3D", "/api/v1/pods?fieldSelector=spec.bogus%3Dx",
            "/api/v1/pods?resourceVersionMatch=Exact",
            "/api/v1/pods?resourceVersionMatch=Bogus&resourceVersion=5",
            "/api/v1/pods?resourceVersionMatch=Exact&resourceVersion=0",
            "/api/v1/pods?resourceVersion=abc", "/api/v1/pods?continue=bogus-token",
            "/api/v1/namespaces/ns-1/pods/web-1", "/api/v1/namespaces/ns-1/pods/nope",
            "/api/v1/namespaces/nosuchns/pods", "/api/v1/namespaces/nosuchns/pods/web-1",
            "/apis/example.com/v1/widgets", "/api/v1/pods?watch=FALSE",
            "/api/v1/pods?resourceVersion=0&limit=5",
        ]
        for path in paths:
            (sa, _, ba), (sb, _, bb) = self.both(path)
            self.assertEqual(sa, sb, path)
            ja, jb = json.loads(ba), json.loads(bb)
            self.assertEqual(ja.get("kind"), jb.get("kind"), path)
            if ja.get("kind") == "Status":
                for f in ("reason", "code", "details"):
                    self.assertEqual(ja.get(f), jb.get(f), (path, f))
                continue
            if "items" in ja:
                self.assertEqual([key(o) for o in ja["items"]], [key(o) for o in jb["items"]], path)
                self.assertEqual(ja["items"], jb["items"], path)
                self.assertEqual(ja["metadata"]["resourceVersion"], jb["metadata"]["resourceVersion"], path)
            else:
                self.assertEqual(ja, jb, path)

    def test_differential_paging_and_tables(self):
        for headers in (None, {"Accept": TABLE}, {"Accept": PMO}):
            got = {}
            for name, base in (("fake", self.fake.url), ("proxy", self.proxy.url)):
                url = base + "/api/v1/pods?limit=7"
                items, cont = [], None
                while True:
                    s, _, raw = h.request("GET", url + ("&continue=" + cont if cont else ""), headers=headers)
                    self.assertEqual(s, 200)
                    page = json.loads(raw)
                    items += page.get("rows") or page.get("items")
                    cont = page["metadata"].get("continue")
                    if not cont:
                        break
                got[name] = (page["kind"], items, page.get("columnDefinitions"))
            self.assertEqual(got["fake"][0], got["proxy"][0])
            self.assertEqual(got["fake"][2], got["proxy"][2])
            if headers and headers["Accept"] == TABLE:
                cells = lambda rows: [r["cells"][:4] + r["cells"][5:] for r in rows]  # Age aside
                self.assertEqual(cells(got["fake"][1]), cells(got["proxy"][1]))
                self.assertEqual([r["object"] for r in got["fake"][1]], [r["object"] for r in got["proxy"][1]])
            else:
                self.assertEqual(got["fake"][1], got["proxy"][1])

    # ---- watch ----

    def watch(self, query, path="/api/v1/namespaces/ns-1/pods", headers=None):
        return h.Watch(self.proxy.url + path + "?" + query)

    def test_watch_spellings_and_prefix(self):
        for v in ("true", "True", "1", "yes", ""):
            w = self.watch("watch=%s&resourceVersion=0&timeoutSeconds=2" % v)
            try:
                evs = w.wait_for(6, timeout=5)
                self.assertEqual(w.status, 200, v)
                self.assertGreaterEqual(len(evs), 6, v)
                self.assertTrue(all(e["type"] == "ADDED" for e in evs), v)
            finally:
                w.close()
        w = h.Watch(self.proxy.url + "/api/v1/watch/namespaces/ns-1/pods?resourceVersion=0&timeoutSeconds=2")
        try:
            self.assertEqual(w.wait_for(1)[0]["type"], "ADDED")
        finally:
            w.close()

    def test_watch_on_a_named_path_is_a_get(self):
        """The apiserver's GET handler serves a named object's path and
        ignores ?watch: the object, as the fake answers it, no stream."""
        path = "/api/v1/namespaces/ns-1/pods/web-1"
        old_rv = h.get_json(self.proxy.url + path)[1]["metadata"]["resourceVersion"]
        new_rv = self.patch("ns-1", "web-1", {"named-get": str(time.time())})
        h.wait_until(lambda: h.get_json(self.proxy.url + path)[1]["metadata"]["resourceVersion"]
                     == new_rv, what="the patch in the cache")
        for q in ("?watch=true&resourceVersion=%s&timeoutSeconds=2" % old_rv,
                  "?watch=1&timeoutSeconds=2", "?watch&timeoutSeconds=2"):
            (fs, fh, fraw), (ps, ph, praw) = self.both(path + q)
            self.assertEqual((fs, ps), (200, 200), (q, fraw[:200], praw[:200]))
            self.assertEqual(json.loads(praw), json.loads(fraw), q)
            self.assertEqual(json.loads(praw)["metadata"]["resourceVersion"], new_rv, q)
        # the watch of one object: the collection's, by field selector
        w = self.watch("fieldSelector=metadata.name%3Dweb-1&watch=true&resourceVersion=0"
                       "&timeoutSeconds=2")
        try:
            evs = w.wait_for(1)
            self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in evs],
                             [("ADDED", "web-1")])
        finally:
            w.close()

    def test_timeout_seconds_closes_the_stream(self):
        t = time.time()
        w = self.watch("watch=1&resourceVersion=0&timeoutSeconds=1")
        w.wait_for(10 ** 6, timeout=10)
        self.assertTrue(w.closed)
        self.assertLess(time.time() - t, 4)
        self.assertGreater(time.time() - t, 0.9)

    def test_watchlist_end_bookmark(self):
        w = self.watch("watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                       "&allowWatchBookmarks=true&timeoutSeconds=3")
        try:
            _, lst = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-1/pods?resourceVersion=0")
            evs = w.wait_for(len(lst["items"]) + 1)
            self.assertTrue(all(e["type"] == "ADDED" for e in evs[:-1]))
            bm = evs[len(lst["items"])]
            self.assertEqual(bm["type"], "BOOKMARK")
            self.assertEqual(bm["object"]["kind"], "Pod")
            ann = bm["object"]["metadata"]["annotations"]
            self.assertEqual(set(ann), {"k8s.io/initial-events-end",
                                        "kubernetes.io/initial-events-list-blueprint"})
            self.assertEqual(ann["k8s.io/initial-events-end"], "true")
        finally:
            w.close()
        # without bookmarks: the initial events and no bookmark, as the apiserver
        w = self.watch("watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=2")
        evs = w.wait_for(10 ** 6, timeout=6)
        self.assertTrue(evs and all(e["type"] == "ADDED" for e in evs))
        # resourceVersionMatch without sendInitialEvents: the apiserver's 422
        s, _, raw = h.request("GET", self.proxy.url + "/api/v1/pods?watch=1&resourceVersionMatch=NotOlderThan")
        self.assertEqual((s, json.loads(raw)["reason"]), (422, "Invalid"))

    def test_watchlist_from_a_future_rv_waits_for_it(self):
        # The write's RV is one the proxy's store has not reached: the fake
        # holds its watch events back, so the watch-list must wait for it.
        # (An RV computed as "the list's + 1" is reached by any background
        # write and the next bookmark, before the write the test means.)
        _, lst = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-8/pods?resourceVersion=0")
        self.faults({"watchDelayMs": 1500})
        try:
            want = int(self.patch("ns-8", "web-8", {"wl": "late"}))
            w = self.watch("watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                           "&allowWatchBookmarks=true&timeoutSeconds=5&resourceVersion=%d" % want,
                           path="/api/v1/namespaces/ns-8/pods")
        finally:
            self.faults({"watchDelayMs": 0})
        try:
            evs = w.wait_for(len(lst["items"]) + 1)
            web8 = [e for e in evs if e["object"]["metadata"].get("name") == "web-8"]
            self.assertEqual(web8[0]["object"]["metadata"]["labels"]["wl"], "late")
            self.assertGreaterEqual(int(evs[-1]["object"]["metadata"]["resourceVersion"]), want)
        finally:
            w.close()
        # an RV from the future: the upstream's own answer, a stream with
        # the 504 ERROR event after its wait, as the apiserver
        s, _, raw = h.request("GET", self.proxy.url + "/api/v1/pods?watch=1&sendInitialEvents=true"
                              "&resourceVersionMatch=NotOlderThan&resourceVersion=%d" % (want + 10 ** 6))
        ev = json.loads(raw.splitlines()[-1])
        self.assertEqual((s, ev["type"], ev["object"]["reason"], ev["object"]["code"]),
                         (200, "ERROR", "Timeout", 504))

    def test_periodic_bookmarks(self):
        _, lst = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-3/pods?resourceVersion=0")
        w = self.watch("watch=1&allowWatchBookmarks=true&resourceVersion=" + lst["metadata"]["resourceVersion"],
                       path="/api/v1/namespaces/ns-3/pods")
        try:
            self.patch("ns-4", "web-4", {"bm": "1"})   # another namespace: filtered out
            evs = w.wait_for(1, timeout=5)
            self.assertEqual(evs[0]["type"], "BOOKMARK")
            self.assertGreater(int(evs[0]["object"]["metadata"]["resourceVersion"]),
                               int(lst["metadata"]["resourceVersion"]))
            self.assertEqual(set(evs[0]["object"]["metadata"]), {"resourceVersion", "creationTimestamp"})
        finally:
            w.close()

    def test_leaving_the_selector_is_deleted(self):
        self.patch("ns-5", "web-5", {"sel": "in"})
        _, lst = h.get_json(self.proxy.url + "/api/v1/pods?labelSelector=sel%3Din")
        w = self.watch("watch=1&labelSelector=sel%3Din&resourceVersion=" + lst["metadata"]["resourceVersion"],
                       path="/api/v1/pods")
        try:
            out = self.patch("ns-5", "web-5", {"sel": "out"})
            self.patch("ns-5", "web-5", {"sel": "in"})
            evs = w.wait_for(2)
            self.assertEqual([e["type"] for e in evs], ["DELETED", "ADDED"])
            # the state that matched, at the RV of the change, as the cacher
            self.assertEqual(evs[0]["object"]["metadata"]["labels"]["sel"], "in")
            self.assertEqual(evs[0]["object"]["metadata"]["resourceVersion"], out)
        finally:
            w.close()

    def test_too_old_rv_is_410_event(self):
        _, lst = h.get_json(self.proxy.url + "/api/v1/pods?resourceVersion=0")
        old = lst["metadata"]["resourceVersion"]
        for i in range(100):   # more than --history 40 (rounded up to 64)
            self.patch("ns-6", "web-6", {"n": str(i)})
        h.wait_until(lambda: int(h.get_json(self.proxy.url + "/api/v1/pods?resourceVersion=0")[1]
                                 ["metadata"]["resourceVersion"]) >= int(old) + 100, what="events")
        w = self.watch("watch=1&resourceVersion=" + old, path="/api/v1/pods")
        evs = w.wait_for(2, timeout=5)
        self.assertEqual(w.status, 200)
        self.assertEqual(len(evs), 1)
        st = evs[0]["object"]
        self.assertEqual(evs[0]["type"], "ERROR")
        self.assertEqual({k: st[k] for k in ("kind", "apiVersion", "metadata", "status", "reason", "code")},
                         {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                          "reason": "Expired", "code": 410})
        self.assertRegex(st["message"], r"^too old resource version: %s \(\d+\)$" % old)
        self.assertTrue(w.closed)

    def test_table_watch(self):
        _, lst = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-7/pods?resourceVersion=0")
        import http.client
        u = urllib.parse.urlsplit(self.proxy.url)
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
        conn.request("GET", "/api/v1/namespaces/ns-7/pods?watch=1&resourceVersion=%s"
                     % lst["metadata"]["resourceVersion"], headers={"Accept": TABLE})
        resp = conn.getresponse()
        self.patch("ns-7", "web-7", {"t": "1"})
        self.patch("ns-7", "web-7", {"t": "2"})
        first, second = json.loads(resp.readline()), json.loads(resp.readline())
        conn.close()
        self.assertEqual(first["object"]["kind"], "Table")
        self.assertEqual(len(first["object"]["columnDefinitions"]), 9)
        self.assertIsNone(second["object"]["columnDefinitions"])
        self.assertEqual(second["object"]["rows"][0]["cells"][0], "web-7")

    # ---- content negotiation ----

    def test_gzip_only_over_128k(self):
        s, hdrs, raw = h.request("GET", self.proxy.url + "/api/v1/pods?resourceVersion=0",
                                 headers={"Accept-Encoding": "gzip"})
        self.assertEqual(hdrs.get("Content-Encoding"), "gzip")
        self.assertEqual(len(json.loads(gzip.decompress(raw))["items"]), 60)
        s, hdrs, raw = h.request("GET", self.proxy.url + "/api/v1/namespaces/ns-1/pods?resourceVersion=0",
                                 headers={"Accept-Encoding": "gzip"})
        self.assertIsNone(hdrs.get("Content-Encoding"))
        json.loads(raw)

    def test_protobuf_stays_local_with_or_without_a_json_fallback(self):
        before = h.get_json(self.fake.url + "/fake/stats")[1]["resources"]["configmaps"]["list"]
        for accept in ("application/vnd.kubernetes.protobuf, application/json",
                       "application/vnd.kubernetes.protobuf"):
            s, hd, _ = h.request("GET", self.proxy.url + "/api/v1/configmaps?resourceVersion=0",
                                 headers={"Accept": accept})
            self.assertEqual((s, hd.get("Content-Type")), (200, "application/vnd.kubernetes.protobuf"))
        after = h.get_json(self.fake.url + "/fake/stats")[1]["resources"]["configmaps"]["list"]
        self.assertEqual(after, before)

    def test_pretty_for_curl_compact_for_clients(self):
        curl = {"User-Agent": "curl/7.88.1"}
        path = self.proxy.url + "/api/v1/namespaces/ns-1/configmaps?resourceVersion=0"
        _, _, compact = h.request("GET", path)
        _, _, pretty = h.request("GET", path, headers=curl)
        self.assertTrue(compact.endswith(b"\n") and b"\n" not in compact[:-1])
        self.assertTrue(pretty.startswith(b'{\n  "kind": "ConfigMapList",\n  "apiVersion": "v1",'))
        self.assertFalse(pretty.endswith(b"\n"))      # the apiserver adds no trailing newline
        self.assertEqual(json.loads(pretty), json.loads(compact))
        _, _, forced = h.request("GET", path + "&pretty=false", headers=curl)
        self.assertEqual(forced, compact)               # pretty=false wins over the User-Agent
        _, _, forced = h.request("GET", path + "&pretty=true")
        self.assertEqual(forced, pretty)                # pretty=true for any client
        s, _, nf = h.request("GET", self.proxy.url + "/api/v1/namespaces/ns-1/pods/nope", headers=curl)
        self.assertEqual(s, 404)
        self.assertTrue(nf.startswith(b'{\n  "kind": "Status",'))

    def test_integer_arguments_as_the_apiserver_converts_them(self):
        # ListOptions' integers go through strconv.ParseInt: anything it
        # refuses is a 400 BadRequest with its error, LIST and watch alike
        bad = [
            ("/api/v1/pods?limit=abc", 'strconv.ParseInt: parsing "abc": invalid syntax'),
            ("/api/v1/pods?limit=", 'strconv.ParseInt: parsing "": invalid syntax'),
            ("/api/v1/pods?limit", 'strconv.ParseInt: parsing "": invalid syntax'),
            ("/api/v1/pods?limit=1.5", 'strconv.ParseInt: parsing "1.5": invalid syntax'),
            ("/api/v1/pods?limit=99999999999999999999",
             'strconv.ParseInt: parsing "99999999999999999999": value out of range'),
            ("/api/v1/namespaces/ns-1/pods?timeoutSeconds=x",
             'strconv.ParseInt: parsing "x": invalid syntax'),
            ("/api/v1/pods?watch=1&timeoutSeconds=x", 'strconv.ParseInt: parsing "x": invalid syntax'),
            # timeoutSeconds is converted before limit
            ("/api/v1/pods?limit=a&timeoutSeconds=b", 'strconv.ParseInt: parsing "b": invalid syntax'),
            ("/api/v1/pods?limit=%22q", 'strconv.ParseInt: parsing "\\"q": invalid syntax'),
        ]
        for path, msg in bad:
            s, _, raw = h.request("GET", self.proxy.url + path, timeout=10)
            self.assertEqual(s, 400, (path, raw[:300]))
            st = json.loads(raw)
            self.assertEqual((st["kind"], st["status"], st["reason"], st["code"], st["message"]),
                             ("Status", "Failure", "BadRequest", 400, msg), path)
        # a negative limit is no limit there (storage pages only for
        # limit > 0), and a sign is allowed
        s, _, raw = h.request("GET", self.proxy.url + "/api/v1/pods?limit=-1")
        self.assertEqual(s, 200, raw[:300])
        self.assertEqual(len(json.loads(raw)["items"]), 60)
        s, _, raw = h.request("GET", self.proxy.url + "/api/v1/pods?limit=%2B2")
        self.assertEqual(s, 200, raw[:300])
        self.assertEqual(len(json.loads(raw)["items"]), 2)
        # a GET of one object has no ListOptions: its limit is not read
        s, _, raw = h.request("GET", self.proxy.url + "/api/v1/namespaces/ns-1/pods/nope?limit=abc")
        self.assertEqual(s, 404, raw[:300])

    def test_aggregated_discovery(self):
        h.wait_discovery(self.proxy.url)   # both answers from memory, one ETag
        s, hdrs, raw = h.request("GET", self.proxy.url + "/apis", headers={"Accept": AGG})
        self.assertEqual(s, 200)
        self.assertEqual(hdrs["Content-Type"], AGG)
        self.assertEqual(hdrs["Vary"], "Accept")
        doc = json.loads(raw)
        self.assertEqual(doc["kind"], "APIGroupDiscoveryList")
        s, _, _ = h.request("GET", self.proxy.url + "/apis",
                            headers={"Accept": AGG, "If-None-Match": hdrs["ETag"]})
        self.assertEqual(s, 304)
        s, hdrs, raw = h.request("GET", self.proxy.url + "/api/v1")
        self.assertEqual((s, json.loads(raw)["kind"]), (200, "APIResourceList"))
        # protobuf ranked first: the upstream's protobuf answer, as it is
        # (the kept documents are JSON); JSON first: from memory
        pb = "application/vnd.kubernetes.protobuf"
        for path in ("/api", "/apis", "/api/v1", "/apis/coordination.k8s.io/v1"):
            for accept in (pb, pb + ", application/json", "application/json;q=0.5, " + pb):
                s, hdrs, raw = h.request("GET", self.proxy.url + path, headers={"Accept": accept})
                ds, dhdrs, draw = h.request("GET", self.fake.url + path,
                                            headers={"Accept": accept})
                self.assertEqual((s, hdrs["Content-Type"]), (200, pb), (path, accept))
                self.assertEqual(raw, draw, (path, accept))
            s, hdrs, raw = h.request("GET", self.proxy.url + path,
                                     headers={"Accept": "application/json, " + pb})
            self.assertEqual((s, hdrs["Content-Type"]), (200, "application/json"), path)
        # served from memory: the upstream frozen does not matter
        self.fake.proc.send_signal(19)
        try:
            s, _, _ = h.request("GET", self.proxy.url + "/version", timeout=3)
            self.assertEqual(s, 200)
        finally:
            self.fake.proc.send_signal(18)


if __name__ == "__main__":
    unittest.main()
