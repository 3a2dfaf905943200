"""Exact reads, side by side with the fake: every row of the LIST rules
in docs/CONSISTENCY.md (resourceVersion, resourceVersionMatch, limit,
continue) sent to the fake and to the proxy gives the same status, the
same items and the same list resourceVersion, page after page. Exact
reads at a recent RV are answered by the proxy's window of versions; an
older RV goes upstream, which answers from its history or with 410."""
import json
import unittest

import harness as h

PODS = "/api/v1/namespaces/ns-1/pods"


def page(body):
    """A list without its continue token's bytes (the two may encode it
    differently): whether there is one is compared instead."""
    m = dict(body.get("metadata", {}))
    had = bool(m.pop("continue", None))
    return {"kind": body.get("kind"), "metadata": m, "continued": had,
            "items": body.get("items"), "reason": body.get("reason"),
            "code": body.get("code")}


class ExactReads(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # quiet: no Lease writes moving the RV between the two reads
        cls.fake = h.fake("--quiet", seed="pods=100")
        # writes the proxy never saw: before its first LIST
        cls.before = [cls.patch("web-21", "before-%d" % i) for i in range(2)]
        cls.proxy = h.proxy(cls.fake.url, "pods")
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    @classmethod
    def patch(cls, name, value):
        s, _, raw = h.request("PATCH", cls.fake.url + PODS + "/" + name,
                              body=json.dumps({"metadata": {"labels": {"seq": value}}}).encode(),
                              headers={"Content-Type": "application/merge-patch+json"})
        assert s == 200, (s, raw[:200])
        return int(json.loads(raw)["metadata"]["resourceVersion"])

    def caught_up(self, rv):
        h.wait_until(lambda: int(h.get_json(self.proxy.url + PODS + "?resourceVersion=0")[1]
                                 ["metadata"]["resourceVersion"]) >= rv,
                     what="the proxy at %d" % rv)

    def upstream_reads(self):
        _, _, raw = h.request("GET", self.proxy.url + "/metrics")
        for line in raw.decode().splitlines():
            if line.startswith("informer_proxy_reads_sent_upstream_total "):
                return float(line.split()[1])
        raise AssertionError("no informer_proxy_reads_sent_upstream_total")

    def same(self, path, status=200, by=None):
        """The same request both ways, following continue tokens on each
        side; returns the fake's pages. by: "cache" or "upstream", who must
        have answered the proxy's requests."""
        up0 = self.upstream_reads()
        pages = self.pages(path, status)
        up1 = self.upstream_reads()
        if by == "cache":
            self.assertEqual(up1, up0, "%s: sent upstream" % path)
        elif by == "upstream":
            self.assertGreater(up1, up0, "%s: not sent upstream" % path)
        return pages

    def pages(self, path, status):
        pages = []
        fpath = ppath = path
        while True:
            fs, fb = h.get_json(self.fake.url + fpath)
            ps, pb = h.get_json(self.proxy.url + ppath)
            self.assertEqual((ps, page(pb)), (fs, page(fb)), path)
            self.assertEqual(fs, status, path)
            pages.append(fb)
            if fs != 200 or not fb["metadata"].get("continue"):
                return pages
            sep = "&" if "?" in path else "?"
            base = path.split("resourceVersion")[0].rstrip("&?")
            fpath = "%s%scontinue=%s" % (base, sep if "?" in base else "?", fb["metadata"]["continue"])
            ppath = "%s%scontinue=%s" % (base, sep if "?" in base else "?", pb["metadata"]["continue"])

    @staticmethod
    def label(pages, name):
        for p in pages:
            for o in p["items"]:
                if o["metadata"]["name"] == name:
                    return o["metadata"].get("labels", {}).get("seq")
        return None

    # Each write is let reach the cache before the next: two events that
    # come in one read of the watch are one commit, and an RV inside it
    # is not the window's to serve (it goes upstream, rightly, but the
    # test asks for the cache).

    def test_exact_at_the_rv_of_one_write_ago(self):
        old = self.patch("web-1", "old")
        self.caught_up(old)
        new = self.patch("web-1", "new")
        self.caught_up(new)
        pages = self.same(PODS + "?resourceVersionMatch=Exact&resourceVersion=%d" % old, by="cache")
        self.assertEqual(pages[0]["metadata"]["resourceVersion"], str(old))
        self.assertEqual(self.label(pages, "web-1"), "old")

    def test_exact_between_two_changes_of_the_resource(self):
        # the RV moves with a write to another resource: the pods' state
        # there is the one after the first write, at the RV asked for
        a = self.patch("web-31", "a")
        self.caught_up(a)
        s, _, raw = h.request("POST", self.fake.url + "/api/v1/namespaces/ns-1/configmaps",
                              body={"metadata": {"name": "between"}, "data": {"k": "v"}})
        self.assertEqual(s, 201, raw[:200])
        mid = int(json.loads(raw)["metadata"]["resourceVersion"])
        c = self.patch("web-31", "c")
        self.assertTrue(a < mid < c)
        self.caught_up(c)
        pages = self.same(PODS + "?resourceVersionMatch=Exact&resourceVersion=%d" % mid, by="cache")
        self.assertEqual(pages[0]["metadata"]["resourceVersion"], str(mid))
        self.assertEqual(self.label(pages, "web-31"), "a")

    def test_limit_with_rv_is_an_exact_read(self):
        old = self.patch("web-41", "old")
        self.caught_up(old)
        new = self.patch("web-41", "new")
        self.caught_up(new)
        pages = self.same("/api/v1/pods?limit=10&resourceVersion=%d" % old, by="cache")
        self.assertGreater(len(pages), 1)
        self.assertTrue(all(p["metadata"]["resourceVersion"] == str(old) for p in pages))
        self.assertEqual(self.label(pages, "web-41"), "old")

    def test_limit_with_rv_1_is_too_old(self):
        pages = self.same(PODS + "?limit=1&resourceVersion=1", status=410, by="upstream")
        self.assertEqual(pages[0]["reason"], "Expired")

    def test_exact_before_the_proxys_first_list_goes_upstream(self):
        # the proxy never held that state: the upstream still does
        pages = self.same(PODS + "?resourceVersionMatch=Exact&resourceVersion=%d" % self.before[0],
                          by="upstream")
        self.assertEqual(self.label(pages, "web-21"), "before-0")
        pages = self.same(PODS + "?limit=7&resourceVersion=%d" % self.before[0], by="upstream")
        self.assertEqual(self.label(pages, "web-21"), "before-0")

    def test_limit_with_rv_not_older_than_is_the_current_state(self):
        old = self.patch("web-51", "old")
        new = self.patch("web-51", "new")
        self.caught_up(new)
        pages = self.same(PODS + "?limit=3&resourceVersionMatch=NotOlderThan&resourceVersion=%d" % old)
        self.assertEqual(pages[0]["metadata"]["resourceVersion"], str(new))
        self.assertEqual(self.label(pages, "web-51"), "new")

    def test_rv0_and_unset_with_a_limit(self):
        new = self.patch("web-61", "x")
        self.caught_up(new)
        pages = self.same(PODS + "?limit=2&resourceVersion=0", by="cache")
        self.assertEqual(len(pages), 1)   # "0": the limit is ignored
        pages = self.same(PODS + "?limit=3")
        self.assertGreater(len(pages), 1)
        self.assertEqual(pages[0]["metadata"]["resourceVersion"], str(new))

    def test_rv_without_limit_is_not_older_than(self):
        old = self.patch("web-81", "old")
        new = self.patch("web-81", "new")
        self.caught_up(new)
        for match in ("", "&resourceVersionMatch=NotOlderThan"):
            pages = self.same(PODS + "?resourceVersion=%d%s" % (old, match), by="cache")
            self.assertEqual(pages[0]["metadata"]["resourceVersion"], str(new))
            self.assertEqual(self.label(pages, "web-81"), "new")

    def test_refused_combinations(self):
        new = self.patch("web-71", "x")
        self.caught_up(new)
        self.same(PODS + "?resourceVersionMatch=Exact&resourceVersion=0", status=422)
        self.same(PODS + "?resourceVersionMatch=Exact", status=422)
        self.same(PODS + "?resourceVersionMatch=NotOlderThan&limit=2", status=422)
        _, first = h.get_json(self.fake.url + PODS + "?limit=2")
        self.same(PODS + "?resourceVersion=%d&continue=%s" % (new, first["metadata"]["continue"]),
                  status=400)


class ExactReadsAfterCompaction(unittest.TestCase):
    def test_an_rv_compacted_upstream_and_outside_the_window_is_410(self):
        fake = h.fake("--quiet", seed="pods=5")
        self.addCleanup(fake.stop)
        rvs = []
        for i in range(2):
            s, _, raw = h.request("PATCH", fake.url + PODS + "/web-1",
                                  body=b'{"metadata":{"labels":{"seq":"%d"}}}' % i,
                                  headers={"Content-Type": "application/merge-patch+json"})
            self.assertEqual(s, 200)
            rvs.append(int(json.loads(raw)["metadata"]["resourceVersion"]))
        proxy = h.proxy(fake.url, "pods")
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        paths = (PODS + "?resourceVersionMatch=Exact&resourceVersion=%d" % rvs[0],
                 PODS + "?limit=1&resourceVersion=%d" % rvs[0])
        for path in paths:   # before compaction: the upstream's history
            fs, fb = h.get_json(fake.url + path)
            self.assertEqual(fs, 200)
            self.assertEqual(h.get_json(proxy.url + path), (fs, fb), path)
        s, _, _ = h.request("POST", fake.url + "/fake/faults", body={"compact": True})
        self.assertEqual(s, 200)
        for path in paths:   # after: its 410, not a state of the proxy's
            fs, fb = h.get_json(fake.url + path)
            self.assertEqual((fs, fb["reason"]), (410, "Expired"))
            self.assertEqual(h.get_json(proxy.url + path), (fs, fb), path)


if __name__ == "__main__":
    unittest.main()
